import FaceCam
import NIOCore
import NIOHTTP1

/// What the routes answer with; shared by every connection.
struct PreviewRoutes: Sendable {
    let hub: PreviewHub
    let metrics: PreviewMetrics
    let page: String
    let counts: @Sendable () -> LiveCounts
    var people: PeoplePanel? = nil
}

/// One HTTP connection. GET (and HEAD) of /, /snapshot.jpg, /metrics,
/// /stream.mjpg and /events, and with a people panel its routes (`PeoplePanel`,
/// the only ones that take a body); 405 for other methods, 404 for other paths;
/// nothing is read from disk. A streaming client has at most one part being
/// written and one waiting: a newer part replaces the waiting one, so a slow
/// client misses frames instead of growing a queue, and a client that takes
/// nothing for `PreviewServer.Timeouts.stall` seconds is disconnected.
final class PreviewHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: PreviewRoutes
    private let timeouts: PreviewServer.Timeouts
    private var request: HTTPRequestHead?
    /// The request's body, kept up to `PeoplePanel.maximumBody` bytes, and how long it was.
    private var body: [UInt8] = []
    private var bodyBytes = 0
    private var subscription: Int?
    /// When the part being written was handed to the channel; nil when none is.
    private var writingSince: Double?
    private var waiting: ByteBuffer?
    /// Closes the connection unless a whole request arrives first (`timeouts.request`).
    private var requestDeadline: ScheduledAction?

    init(routes: PreviewRoutes, timeouts: PreviewServer.Timeouts) {
        self.routes = routes
        self.timeouts = timeouts
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitRequest(context: context)
        context.fireChannelActive()
    }

    /// Gives the client `timeouts.request` seconds to send its next whole request.
    private func awaitRequest(context: ChannelHandlerContext) {
        requestDeadline?.cancel()
        let channel = context.channel
        requestDeadline = timeouts.clock.schedule(at: timeouts.clock.now + timeouts.request) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            request = head
            body = []
            bodyBytes = 0
        case .body(var part):
            // Only changes take a body; beyond their bound it is counted and discarded.
            bodyBytes += part.readableBytes
            if request?.method == .POST, bodyBytes <= PeoplePanel.maximumBody { body += part.readBytes(length: part.readableBytes) ?? [] }
        case .end:
            guard let head = request, subscription == nil else { return }
            request = nil
            requestDeadline?.cancel()
            requestDeadline = nil
            respond(to: head, context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, writingSince == nil, let part = waiting {
            waiting = nil
            send(part, context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        requestDeadline?.cancel()
        endSubscription()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestDeadline?.cancel()
        endSubscription()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func endSubscription() {
        if let subscription { routes.hub.unsubscribe(subscription) }
        subscription = nil
        waiting = nil
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if routes.people != nil, PeoplePanel.isPanel(path), let refusal = PeoplePanel.hostRefusal(head) {
            return reply(refusal.status, refusal.body, type: "application/json", to: head, context: context)
        }
        if let people = routes.people, PeoplePanel.isChange(path) {
            guard head.method == .POST else {
                return reply(.methodNotAllowed, "a change is a POST\n", extra: [("Allow", "POST")], to: head, context: context)
            }
            return change(path, on: people, for: head, context: context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return reply(.methodNotAllowed, "only GET and HEAD are served\n", extra: [("Allow", "GET, HEAD")], to: head, context: context)
        }
        switch path {
        case "/":
            reply(.ok, routes.page, type: "text/html; charset=utf-8", to: head, context: context)
        case "/snapshot.jpg":
            guard let jpeg = routes.hub.snapshot else {
                return reply(.serviceUnavailable, "no frame processed yet\n", extra: [("Retry-After", "1")], to: head, context: context)
            }
            reply(.ok, body: jpeg, type: "image/jpeg", to: head, context: context)
        case "/metrics":
            let text = routes.metrics.text(counts: routes.counts(), streams: routes.hub.streamCount)
            reply(.ok, text, type: "text/plain; version=0.0.4; charset=utf-8", to: head, context: context)
        case "/stream.mjpg":
            stream(.mjpeg, type: "multipart/x-mixed-replace; boundary=\(PreviewHub.boundary)", for: head, context: context)
        case "/events":
            stream(.events, type: "text/event-stream", for: head, context: context)
        default:
            if let people = routes.people, let answer = people.read(path) {
                return reply(answer.status, body: ByteBuffer(bytes: answer.body), type: answer.type, to: head, context: context)
            }
            let routes = "/, /stream.mjpg, /snapshot.jpg, /events" + (routes.people == nil ? " and /metrics" : ", /metrics and /people")
            reply(.notFound, "not found: the routes are \(routes)\n", to: head, context: context)
        }
    }

    /// A people panel's change: refused at once, or made on the panel's queue and answered from there.
    private func change(_ path: String, on people: PeoplePanel, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        if let refusal = people.refusal(of: head, bodyBytes: bodyBytes) {
            return reply(refusal.status, refusal.body, type: "application/json", to: head, context: context)
        }
        switch PeoplePanel.change(path: path, body: body) {
        case .failure(let error):
            reply(error.answer.status, error.answer.body, type: "application/json", to: head, context: context)
        case .success(let change):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            people.changes.async {
                let answer = people.perform(change)
                eventLoop.execute {
                    handler.value.reply(answer.status, answer.body, type: "application/json", to: head, context: boundContext.value)
                }
            }
        }
    }

    private func reply(
        _ status: HTTPResponseStatus, _ text: String, type: String = "text/plain; charset=utf-8",
        extra: [(String, String)] = [], to request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        reply(status, body: ByteBuffer(string: text), type: type, extra: extra, to: request, context: context)
    }

    /// A whole response; the connection stays open when the client keeps it alive.
    private func reply(
        _ status: HTTPResponseStatus, body: ByteBuffer, type: String, extra: [(String, String)] = [],
        to request: HTTPRequestHead, context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(body.readableBytes)), ("Cache-Control", "no-store")])
        headers.add(contentsOf: extra)
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD { context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        let sent = context.writeAndFlush(Self.wrapOutboundOut(.end(nil)))
        if keepAlive {
            awaitRequest(context: context)
        } else {
            let channel = context.channel
            sent.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Starts a stream that lasts until the client goes or the server stops; 503 beyond the hub's limit.
    private func stream(_ kind: PreviewStream, type: String, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        let headers = HTTPHeaders([("Content-Type", type), ("Cache-Control", "no-store"), ("Connection", "close")])
        let head = HTTPResponseHead(version: request.version, status: .ok, headers: headers)
        if request.method == .HEAD {
            context.write(Self.wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            return
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let subscriber = PreviewHub.Subscriber(
            stream: kind,
            deliver: { part in eventLoop.execute { handler.value.offer(part, context: boundContext.value) } },
            close: { eventLoop.execute { handler.value.finish(context: boundContext.value) } })
        guard let identifier = routes.hub.subscribe(subscriber) else {
            let text = "\(routes.hub.maximumStreams) clients are streaming already; try again later\n"
            return reply(.serviceUnavailable, text, extra: [("Retry-After", "5")], to: request, context: context)
        }
        subscription = identifier
        context.writeAndFlush(Self.wrapOutboundOut(.head(head)), promise: nil)
        // A new client sees the newest frame (or record) at once rather than waiting for the next.
        if let newest = routes.hub.newest(kind) { offer(newest, context: context) }
    }

    private func offer(_ part: ByteBuffer, context: ChannelHandlerContext) {
        guard subscription != nil else { return }
        if let since = writingSince {
            if timeouts.clock.now - since > timeouts.stall { return context.close(promise: nil) }
        } else if context.channel.isWritable {
            return send(part, context: context)
        }
        if waiting != nil { routes.metrics.recordSkipped() }
        waiting = part
    }

    private func send(_ part: ByteBuffer, context: ChannelHandlerContext) {
        writingSince = timeouts.clock.now
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(Self.wrapOutboundOut(.body(.byteBuffer(part)))).whenComplete { result in
            let handler = handler.value
            handler.writingSince = nil
            guard case .success = result else { return }
            let context = boundContext.value
            if let next = handler.waiting, context.channel.isWritable {
                handler.waiting = nil
                handler.send(next, context: context)
            }
        }
    }

    /// The server is stopping: the stream ends after what is being written.
    private func finish(context: ChannelHandlerContext) {
        subscription = nil
        waiting = nil
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
