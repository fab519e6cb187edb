import FaceCam
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Why the preview could not be served.
public struct ServeError: Error, Sendable, CustomStringConvertible {
    public var address: ServeAddress
    public var reason: String

    public var description: String {
        "cannot serve the preview on \(address): \(reason)"
    }
}

/// The live preview over HTTP (live --serve), on one event loop thread of
/// its own: a page (/), the preview as MJPEG (/stream.mjpg) and as a JPEG
/// (/snapshot.jpg), each frame's record as server-sent events (/events) and
/// Prometheus metrics (/metrics). As a `LiveObserver` it is handed each
/// processed frame and preview on the live feed's queues; it encodes each
/// preview once and every client shares the bytes.
public final class PreviewServer: LiveObserver, Sendable {
    /// Streaming clients beyond this get 503.
    public static let maximumStreams = 16
    /// Connections beyond this are closed at once, so idle clients cannot use up descriptors.
    public static let maximumConnections = 64
    /// Connections from one address beyond this are closed at once, so one client cannot take them all.
    public static let maximumConnectionsPerAddress = 32
    /// How long the server waits on a client.
    public struct Timeouts: Sendable {
        /// A connection that has not sent a whole request this many seconds after it opened or after
        /// its last answer (a header sent slowly, byte by byte; an idle keep-alive) is closed; streams,
        /// which send nothing after their request, are not.
        public var request: Double
        /// A streaming client that takes nothing for this many seconds is disconnected.
        public var stall: Double
        /// What both are measured on.
        public var clock: any MonotonicClock

        public init(request: Double = 10, stall: Double = 30, clock: any MonotonicClock = SystemClock()) {
            self.request = request
            self.stall = stall
            self.clock = clock
        }
    }
    public static let jpegQuality = 80
    static let sendBufferBytes = 256 * 1024

    /// Where it listens, the port as bound.
    public let address: ServeAddress
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let hub: PreviewHub
    private let metrics: PreviewMetrics
    private let counts: CountsSource
    private let people: PeoplePanel?
    private let closed = Mutex(false)

    /// Binds `address` and starts serving; `source` names what the page shows, with `people`'s panel when given.
    public init(address: ServeAddress, source: String, people: PeoplePanel? = nil, timeouts: Timeouts = Timeouts()) throws(ServeError) {
        let hub = PreviewHub(maximumStreams: Self.maximumStreams)
        let metrics = PreviewMetrics()
        let counts = CountsSource()
        let routes = PreviewRoutes(
            hub: hub, metrics: metrics, page: PreviewPage.html(source: source, people: people != nil), counts: counts.read, people: people)
        let connections = ConnectionLimit(maximum: Self.maximumConnections, perAddress: Self.maximumConnectionsPerAddress)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let host = channel.remoteAddress?.ipAddress ?? ""
                    guard connections.enter(from: host) else {
                        channel.close(promise: nil)
                        return
                    }
                    channel.closeFuture.whenComplete { _ in connections.leave(from: host) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(PreviewHTTPHandler(routes: routes, timeouts: timeouts))
                }
            }
            // A fixed send buffer (no autotuning to megabytes): a stalled viewer is noticed within a
            // few frames and holds little kernel memory.
            .childChannelOption(.socketOption(.so_sndbuf), value: Self.sendBufferBytes)
            .childChannelOption(.maxMessagesPerRead, value: 1)
        do {
            listener = try bootstrap.bind(host: address.host, port: address.port).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw ServeError(address: address, reason: Self.reason(for: error))
        }
        self.group = group
        self.hub = hub
        self.metrics = metrics
        self.counts = counts
        self.people = people
        self.address = ServeAddress(host: address.host, port: listener.localAddress?.port ?? address.port)
    }

    deinit { close() }

    /// The page's address.
    public var url: String { "http://\(address)/" }

    /// The page's addresses: for a wildcard address, one for each of the machine's own addresses it
    /// listens on (IPv4 for 0.0.0.0, both families for ::), else `url`.
    public var reachableURLs: [String] {
        guard address.isWildcard else { return [url] }
        let devices = (try? System.enumerateDevices()) ?? []
        let hosts = devices.compactMap { device -> String? in
            switch device.address {
            case .v4(let v4)?: return v4.host
            case .v6(let v6)? where address.host == "::" && !v6.host.hasPrefix("fe80"): return v6.host
            default: return nil
            }
        }
        let urls = hosts.map { "http://\(ServeAddress(host: $0, port: address.port))/" }
        return urls.isEmpty ? [url] : Array(Set(urls)).sorted()
    }

    /// Where /metrics reads the frame counts from (the live feed, once it exists).
    public func attach(counts source: @escaping @Sendable () -> LiveCounts) {
        counts.set(source)
    }

    /// Ends every stream, stops listening and waits for the event loop to stop.
    public func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        hub.close()
        try? listener.close().wait()
        // A change under way (waiting on the gallery, at most its busy timeout) is made and answered before the loop stops.
        people?.changes.sync {}
        try? group.syncShutdownGracefully()
    }

    public var wantsPreviews: Bool { true }

    public func processed(_ result: FrameResult, latency: Double) {
        metrics.record(faces: result.faces.count, latency: latency)
        hub.publish(record: String(JSONLinesFormat().render(result).dropLast()))
    }

    public func preview(_ preview: Frame, of result: FrameResult) {
        // A frame that cannot be encoded is skipped; the next one replaces it.
        guard let jpeg = try? JPEG.encode(preview, quality: Self.jpegQuality) else { return }
        hub.publish(jpeg: jpeg)
    }

    /// The system's words for a failed bind ("Address already in use"), else NIO's.
    private static func reason(for error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}

/// The counts /metrics reports, from a source attached once the live feed exists.
private final class CountsSource: Sendable {
    private let source = Mutex<(@Sendable () -> LiveCounts)?>(nil)

    func set(_ source: @escaping @Sendable () -> LiveCounts) {
        self.source.withLock { $0 = source }
    }

    @Sendable func read() -> LiveCounts {
        source.withLock { $0 }?() ?? LiveCounts()
    }
}

/// Open connections, at most `maximum`.
private final class ConnectionLimit: Sendable {
    private let maximum: Int
    private let perAddress: Int
    /// Connections open, in all and per address.
    private let open = Mutex<(all: Int, from: [String: Int])>((0, [:]))

    init(maximum: Int, perAddress: Int) {
        self.maximum = maximum
        self.perAddress = perAddress
    }

    func enter(from host: String) -> Bool {
        open.withLock { open in
            guard open.all < maximum, open.from[host, default: 0] < perAddress else { return false }
            open.all += 1
            open.from[host, default: 0] += 1
            return true
        }
    }

    func leave(from host: String) {
        open.withLock { open in
            open.all -= 1
            open.from[host, default: 1] -= 1
            if open.from[host] == 0 { open.from[host] = nil }
        }
    }
}
