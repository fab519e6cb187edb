import FaceCam
import Foundation
@testable import FaceCamServe
@testable import FaceCamCore
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

struct ServeAddressTests {
    @Test(arguments: [
        ("8080", "127.0.0.1", 8080), ("0", "127.0.0.1", 0), ("0.0.0.0:80", "0.0.0.0", 80),
        ("[::1]:9000", "::1", 9000), ("localhost:65535", "localhost", 65535),
    ])
    func addressesParse(argument: String, host: String, port: Int) throws {
        let address = try #require(ServeAddress(argument: argument))
        #expect(address == ServeAddress(host: host, port: port))
    }

    @Test(arguments: ["", "http", "70000", "-1", "::1:80", "[::1]80", "[::1]:", ":80", "host:", "a b:80", "8080x", "1.2.3.4:+80"])
    func otherTextIsRefused(argument: String) {
        #expect(ServeAddress(argument: argument) == nil)
    }

    @Test func anIPv6HostIsBracketedInURLs() {
        #expect(ServeAddress(host: "::1", port: 8080).description == "[::1]:8080")
        #expect(ServeAddress(port: 80).description == "127.0.0.1:80")
    }
}

struct PreviewPageTests {
    @Test func theSourceNameIsEscaped() {
        let page = PreviewPage.html(source: "<script>alert('x')</script> & \"more\"")
        #expect(!page.contains("<script>alert"))
        #expect(page.contains("&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt; &amp; &quot;more&quot;"))
    }
}

struct PreviewMetricsTests {
    @Test func countersFollowTheCountsAndNeverFall() {
        let metrics = PreviewMetrics()
        metrics.record(faces: 2, latency: 0.03)
        metrics.record(faces: 1, latency: 0.2)
        _ = metrics.text(counts: LiveCounts(captured: 10, processed: 8, dropped: 2, missed: 1), streams: 3)
        let text = metrics.text(counts: LiveCounts(captured: 12, processed: 7, dropped: 2, missed: 1), streams: 1)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for line in ["facecam_frames_captured_total 12", "facecam_frames_processed_total 8", "facecam_frames_dropped_total 2",
                     "facecam_frames_missed_total 1", "facecam_faces_detected_total 3", "facecam_preview_streams 1.0",
                     "facecam_latency_seconds_count 2", "facecam_latency_seconds_bucket{le=\"0.035\"} 1",
                     "facecam_latency_seconds_bucket{le=\"0.25\"} 2", "# TYPE facecam_frames_captured_total counter"] {
            #expect(lines.contains(line), "\(line) not in\n\(text)")
        }
        let start = lines.first { $0.hasPrefix("process_start_time_seconds ") }.flatMap { Double($0.split(separator: " ")[1]) }
        #expect(start.map { abs($0 - Date().timeIntervalSince1970) < 60 } == true, "\(text)")
    }
}

/// The connection handler on an embedded channel: no sockets, the event loop run by hand.
struct PreviewHTTPHandlerTests {
    let hub = PreviewHub(maximumStreams: 1)
    let metrics = PreviewMetrics()

    private func connection(
        _ timeouts: PreviewServer.Timeouts = PreviewServer.Timeouts(), writes: HeldWrites? = nil
    ) throws -> EmbeddedChannel {
        let routes = PreviewRoutes(hub: hub, metrics: metrics, page: "<p>page</p>", counts: { LiveCounts() })
        let channel = EmbeddedChannel()
        if let writes { try channel.pipeline.syncOperations.addHandler(writes) }
        try channel.pipeline.syncOperations.addHandler(PreviewHTTPHandler(routes: routes, timeouts: timeouts))
        return channel
    }

    /// Once `holding`, keeps every write from the channel and leaves it unfinished, as a socket whose buffer is full does.
    final class HeldWrites: ChannelOutboundHandler {
        typealias OutboundIn = HTTPServerResponsePart
        var holding = false
        private(set) var held: [EventLoopPromise<Void>?] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if holding { held.append(promise) } else { context.write(data, promise: promise) }
        }

        // What is still held when the test ends fails, as a closed socket's writes do: NIO wants no promise left unfulfilled.
        deinit {
            for promise in held { promise?.fail(ChannelError.ioOnClosedChannel) }
        }
    }

    /// A connection that sends no whole request is closed when `request` seconds have passed on the clock given (moved
    /// by hand), not before; an answer gives the next request as long again.
    @Test func aConnectionThatSendsNoRequestIsClosedAtItsTimeout() throws {
        let clock = ManualClock()
        let channel = try connection(PreviewServer.Timeouts(request: 10, clock: clock))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        clock.advance(by: 9.999)
        #expect(channel.isActive)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try responseHead(channel)?.status == .ok)
        _ = try bodies(channel)
        clock.advance(by: 9.999)
        #expect(channel.isActive, "the answer did not restart the timeout")
        clock.advance(by: 0.002)
        #expect(!channel.isActive)
    }

    /// A streaming client whose part has been in writing for more than `stall` seconds (on the clock given) is
    /// disconnected at the next part; until then newer parts only replace the waiting one.
    @Test func aStreamThatTakesNothingIsClosedAfterItsStall() throws {
        let clock = ManualClock(), writes = HeldWrites()
        let channel = try connection(PreviewServer.Timeouts(stall: 30, clock: clock), writes: writes)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try request(.GET, "/stream.mjpg", on: channel)
        #expect(try responseHead(channel)?.status == .ok)
        writes.holding = true
        hub.publish(jpeg: Array("first".utf8))
        channel.embeddedEventLoop.run()
        #expect(writes.held.count == 1, "the first part is being written")
        clock.advance(by: 30)
        hub.publish(jpeg: Array("second".utf8))
        channel.embeddedEventLoop.run()
        #expect(channel.isActive && writes.held.count == 1, "30 s is not yet more than the stall")
        clock.advance(by: 0.5)
        hub.publish(jpeg: Array("third".utf8))
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    private func request(_ method: HTTPMethod, _ uri: String, on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: uri)))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    private func responseHead(_ channel: EmbeddedChannel) throws -> HTTPResponseHead? {
        guard case .head(let head)? = try channel.readOutbound(as: HTTPServerResponsePart.self) else { return nil }
        return head
    }

    private func bodies(_ channel: EmbeddedChannel) throws -> [String] {
        var bodies: [String] = []
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) {
            if case .body(.byteBuffer(let buffer)) = part { bodies.append(String(buffer: buffer)) }
        }
        return bodies
    }

    @Test func aClientThatCannotTakeMoreGetsOnlyTheNewestFrame() throws {
        let channel = try connection()
        try request(.GET, "/stream.mjpg", on: channel)
        let head = try #require(try responseHead(channel))
        #expect(head.status == .ok && head.headers["Content-Type"] == ["multipart/x-mixed-replace; boundary=facecamframe"])

        channel.isWritable = false
        for frame in ["first", "second", "third"] { hub.publish(jpeg: Array(frame.utf8)) }
        channel.embeddedEventLoop.run()
        #expect(try bodies(channel).isEmpty)

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.run()
        #expect(try bodies(channel) == ["--facecamframe\r\nContent-Type: image/jpeg\r\nContent-Length: 5\r\n\r\nthird\r\n"])
        #expect(metrics.text(counts: LiveCounts(), streams: 0).contains("facecam_preview_parts_skipped_total 2"))

        // Once it can take them, every frame goes out.
        hub.publish(jpeg: Array("fourth".utf8))
        channel.embeddedEventLoop.run()
        #expect(try bodies(channel).count == 1)

        // A second stream is beyond this hub's limit of one.
        let second = try connection()
        try request(.GET, "/events", on: second)
        #expect(try responseHead(second)?.status == .serviceUnavailable)

        // Stopping ends the stream.
        hub.close()
        channel.embeddedEventLoop.run()
        _ = try bodies(channel)
        #expect(!channel.isActive)
    }

    @Test func eventsCarryEachRecordAsOneServerSentEvent() throws {
        let channel = try connection()
        try request(.GET, "/events?from=page", on: channel)
        #expect(try responseHead(channel)?.headers["Content-Type"] == ["text/event-stream"])
        hub.publish(record: "{\"frame\":1}")
        hub.publish(jpeg: [1, 2, 3])
        channel.embeddedEventLoop.run()
        #expect(try bodies(channel) == ["data: {\"frame\":1}\n\n"])
        // A client that comes later starts with the newest record, not with nothing.
        _ = try channel.finish()
        let later = try connection()
        try request(.GET, "/events", on: later)
        later.embeddedEventLoop.run()
        #expect(try responseHead(later)?.status == .ok)
        #expect(try bodies(later) == ["data: {\"frame\":1}\n\n"])
    }

    @Test(arguments: [
        (HTTPMethod.POST, "/", HTTPResponseStatus.methodNotAllowed), (.PUT, "/snapshot.jpg", .methodNotAllowed),
        (.GET, "/index.html", .notFound), (.GET, "/../etc/passwd", .notFound), (.GET, "/snapshot.jpg", .serviceUnavailable),
        (.GET, "/", .ok), (.GET, "/metrics", .ok),
    ])
    func routesAndMethods(method: HTTPMethod, uri: String, status: HTTPResponseStatus) throws {
        let channel = try connection()
        try request(method, uri, on: channel)
        let head = try #require(try responseHead(channel))
        #expect(head.status == status)
        if status == .methodNotAllowed { #expect(head.headers["Allow"] == ["GET, HEAD"]) }
    }

    @Test func headAnswersWithoutABody() throws {
        hub.publish(jpeg: [0xFF, 0xD8, 0xFF, 0xD9])
        let channel = try connection()
        try request(.HEAD, "/snapshot.jpg", on: channel)
        let head = try #require(try responseHead(channel))
        #expect(head.status == .ok && head.headers["Content-Length"] == ["4"])
        #expect(try bodies(channel).isEmpty)
    }
}

/// The server on a real socket, its request timeout 5 s on a clock the client's script moves (through the test).
struct PreviewServerConnectionTests {
    /// Connections that send nothing: one address gets at most 32 of the 64, so a viewer from another still gets in, and
    /// each is closed once the request timeout has passed on the clock; so is one that sends its header a byte a second,
    /// whose bytes do not put its timeout off.
    @Test func idleConnectionsCannotLockViewersOut() throws {
        let clock = ManualClock()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", timeouts: .init(request: 5, clock: clock))
        defer { server.close() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Preview/idle_clients.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, "127.0.0.1", String(server.address.port), "40", "5"]
        let output = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var result: [String: Any]?
        while let line = Self.line(from: output.fileHandleForReading) {
            if line.hasPrefix("advance "), let seconds = Double(line.dropFirst("advance ".count)) {
                clock.advance(by: seconds)
                input.fileHandleForWriting.write(Data("ok\n".utf8))
            } else {
                result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            }
        }
        process.waitUntilExit()
        let found = try #require(result, "the script printed no result")
        #expect(found["refused"] as? Int == 8 && found["held"] as? Int == 32 && found["viewer"] as? Int == 200, "\(found)")
        #expect(found["closed_after_idle"] as? Int == 32, "\(found)")
        let trickle = try #require(found["trickle_closed_after"] as? Int, "the trickling connection was never closed: \(found)")
        // Its timeout runs from when the server took the connection, which may be a clock second or more after it was made.
        #expect(trickle >= 5, "\(found)")
    }

    /// A line the script printed, without its newline; nil at the end of its output.
    private static func line(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while let byte = try? handle.read(upToCount: 1), let first = byte.first {
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
