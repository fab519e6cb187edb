import CMQTT
import Dispatch
import FaceCam
import Foundation
import Synchronization

/// A connection to an MQTT broker that never makes its callers wait: `retain` and `send` queue a
/// message and return, and a thread of the connection's own talks to the broker, connects,
/// reconnects with backoff, and republishes the retained messages after each (re)connection.
///
/// What waits is bounded: at most `inFlightLimit` messages are handed to libmosquitto
/// unacknowledged; behind them, each retained topic keeps only its newest payload and other
/// messages wait in a queue of the settings' capacity, beyond which they are dropped and counted. All
/// messages go at QoS 1, so an acknowledgement says the broker has them. Each connection is a new
/// libmosquitto client: messages an old one still held are ours to send again, and none of them
/// can overtake a newer payload.
public final class MQTTConnection: Sendable {
    public struct Settings: Sendable {
        public var endpoint: MQTTEndpoint
        public var clientID: String
        public var password: String?
        /// The CA certificates that vouch for an mqtts:// broker (else the system's).
        public var caFile: String?
        /// What a user gives to name `caFile` (the command line's option), for messages; nil names none.
        public var caOption: String?
        /// The broker publishes this, retained, when the connection is lost without a goodbye.
        public var willTopic: String?
        public var willPayload: String?
        /// Subscribed on every connection; their messages go to `onMessage`.
        public var subscriptions: [String]
        /// How many messages (beside the retained ones) wait for the broker; more are dropped and counted.
        public var queueCapacity: Int
        public static let defaultQueueCapacity = 100

        public init(
            endpoint: MQTTEndpoint, clientID: String, password: String? = nil, caFile: String? = nil, caOption: String? = nil,
            willTopic: String? = nil, willPayload: String? = nil, subscriptions: [String] = [],
            queueCapacity: Int = Settings.defaultQueueCapacity
        ) {
            self.caOption = caOption
            self.queueCapacity = queueCapacity
            self.endpoint = endpoint
            self.clientID = clientID
            self.password = password
            self.caFile = caFile
            self.willTopic = willTopic
            self.willPayload = willPayload
            self.subscriptions = subscriptions
        }
    }

    public static let inFlightLimit = 16

    /// Messages on the subscribed topics longer than this reach `onMessage` as nil, not copied:
    /// facecam's commands are a word, and anyone on the broker may send hundreds of megabytes.
    public static let longestMessage = 1024

    private let settings: Settings
    private let clock: any MonotonicClock
    private let report: @Sendable (String) -> Void
    /// What the callers' threads and the connection's thread share.
    private struct Shared {
        /// Replaced only on the connection's thread, while the outbox is not connected.
        var client: Client?
        /// Set by `close`; the connection's thread ends the session as it says.
        var stop: MQTTStop?
        /// Changed through `changeOutbox`, which wakes the threads waiting for it to be idle.
        var outbox: MQTTOutbox
        /// `waitUntilDelivered`'s wake-ups, signalled and let go when the outbox is idle.
        var idleWaiters: [DispatchSemaphore] = []
        /// The connection's state as its thread sees it (only that thread changes it).
        var link: MQTTLink
        /// Set by `start`, before the connection's thread begins.
        var onMessage: @Sendable (String, [UInt8]?) -> Void = { _, _ in }
    }

    /// A libmosquitto client, which its threaded API lets any thread publish on; destroyed when the last thread using it
    /// (publishing outside the lock) lets it go.
    private final class Client: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { cmqtt_destroy(pointer) }
    }

    private let shared: Mutex<Shared>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// Makes the first client (no network yet), so that settings libmosquitto refuses (a CA file
    /// it cannot load) fail here.
    public init(
        settings: Settings, clock: any MonotonicClock = SystemClock(), report: @escaping @Sendable (String) -> Void
    ) throws(MQTTError) {
        self.settings = settings
        self.clock = clock
        self.report = report
        shared = Mutex(Shared(
            outbox: MQTTOutbox(queueCapacity: settings.queueCapacity, inFlightLimit: Self.inFlightLimit),
            link: MQTTLink(endpoint: settings.endpoint)))
        let client = try makeClient()
        shared.withLock { $0.client = client }
    }

    private func makeClient() throws(MQTTError) -> Client {
        var message = [CChar](repeating: 0, count: 256)
        let made: OpaquePointer? = withOptionalCString(settings.endpoint.username) { username in
            withOptionalCString(settings.password) { password in
                withOptionalCString(settings.caFile) { caFile in
                    withOptionalCString(settings.willTopic) { willTopic in
                        withOptionalCString(settings.willPayload) { willPayload in
                            settings.clientID.withCString { clientID in
                                var cSettings = cmqtt_settings(
                                    client_id: clientID, username: username, password: password, tls: settings.endpoint.tls,
                                    ca_file: caFile, will_topic: willTopic, will_payload: willPayload, keepalive_seconds: 30)
                                return cmqtt_create(&cSettings, mqttCallback, Unmanaged.passUnretained(self).toOpaque(),
                                                    &message, message.count)
                            }
                        }
                    }
                }
            }
        }
        guard let made else {
            throw MQTTError(endpoint: settings.endpoint, reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Client(made)
    }

    /// Starts the connection's thread: the first attempt to connect is made there, so nothing waits for the broker. Messages
    /// on the subscribed topics go to `onMessage`, on that thread.
    public func start(onMessage: @escaping @Sendable (String, [UInt8]?) -> Void = { _, _ in }) {
        shared.withLock { $0.onMessage = onMessage }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "facecam.mqtt"
        thread.start()
    }

    /// Sets a retained topic's payload (an empty one clears it at the broker). The broker gets the
    /// newest payload of each topic, in the order of their latest changes.
    public func retain(_ payload: [UInt8], on topic: String) {
        changeOutbox { $0.retain(payload, on: topic) }
        pump()
    }

    /// Queues a message; dropped (and counted) when the settings' `queueCapacity` are waiting.
    public func send(_ payload: [UInt8], on topic: String) {
        changeOutbox { $0.send(payload, on: topic) }
        pump()
    }

    public var currentCounts: BrokerCounts {
        shared.withLock { $0.outbox.counts }
    }

    /// Waits until the broker acknowledged everything queued so far, for up to `timeout` seconds; false when it did not.
    public func waitUntilDelivered(timeout: Double) -> Bool {
        let deadline = clock.now + timeout
        let idle = DispatchSemaphore(value: 0)
        let waiting = shared.withLock { state in
            guard !state.outbox.isIdle else { return false }
            state.idleWaiters.append(idle)
            return true
        }
        guard waiting else { return true }
        if clock.wait(for: idle, until: deadline) { return true }
        return shared.withLock { state in
            state.idleWaiters.removeAll { $0 === idle }
            return state.outbox.isIdle
        }
    }

    /// Sends what is queued, then `farewell` (retained: the availability's `offline`), for up to
    /// `grace` seconds. When the broker acknowledged the farewell, says goodbye; else leaves without
    /// one, so that the broker publishes the last will. Stops the thread; what never reached the
    /// broker is counted as dropped.
    public func close(farewell message: (payload: [UInt8], topic: String)? = nil, grace: Double = 2) -> BrokerCounts {
        let stop = MQTTStop(at: clock.now, grace: grace)
        changeOutbox { $0.farewell(message) }
        shared.withLock { $0.stop = stop }
        // The farewell is due now: handed over here, or by the taker of a batch pending.
        pump()
        wake.signal()
        // A thread stuck in a name lookup is left to the end of the process, its messages counted lost.
        guard clock.wait(for: finished, until: stop.threadDeadline) else {
            var lost = currentCounts
            lost.dropped += shared.withLock { $0.outbox.waitingEvents }
            return lost
        }
        return currentCounts
    }

    /// Changes the outbox under the lock and, when that leaves it idle, wakes `waitUntilDelivered`.
    private func changeOutbox(_ change: (inout MQTTOutbox) -> Void) {
        shared.withLock { state in
            change(&state.outbox)
            guard state.outbox.isIdle else { return }
            state.idleWaiters.forEach { $0.signal() }
            state.idleWaiters.removeAll()
        }
    }

    /// Hands libmosquitto what the outbox says is due, a batch at a time, until nothing more is. libmosquitto is called
    /// outside the lock: the batch is taken under it and its ids recorded under it after, the outbox keeping an
    /// acknowledgement that comes in between for its id. A thread that finds a batch pending leaves what it added to that
    /// batch's taker, who takes again after recording it.
    private func pump() {
        while let (client, batch) = shared.withLock({ state -> (Client, MQTTOutbox.Batch)? in
            guard let client = state.client, let batch = state.outbox.takeBatch() else { return nil }
            return (client, batch)
        }) {
            var connectionGoing = false
            var refusals: [String] = []
            let outcomes = batch.handovers.map { handover -> MQTTOutbox.Outcome in
                // The connection is going: what was not handed over is sent on the next one.
                guard !connectionGoing else { return .notTaken }
                let message = handover.message
                var id: Int32 = 0
                let status = message.payload.withUnsafeBufferPointer { bytes in
                    cmqtt_publish(client.pointer, message.topic, bytes.baseAddress, Int32(bytes.count), 1, message.retain, &id)
                }
                if status == 0 { return .taken(id: id) }
                if cmqtt_status_is_disconnected(status) {
                    connectionGoing = true
                    return .notTaken
                }
                refusals.append("warning: MQTT: cannot publish to \(message.topic) (\(String(cString: cmqtt_describe(status)))); dropped it")
                return .refused
            }
            changeOutbox { $0.record(batch, outcomes) }
            refusals.forEach(report)
            if connectionGoing { return }
        }
    }

    /// The connection's thread: connect, run the network, and on any failure wait and connect again
    /// with a new client; on a stop, end as it says.
    private func run() {
        let endpoint = settings.endpoint
        var stopping: Bool { shared.withLock { $0.stop != nil } }
        var client = shared.withLock { $0.client }
        while let current = client, !stopping {
            var status = endpoint.host.withCString { cmqtt_connect(current.pointer, $0, Int32(endpoint.port)) }
            while status == 0, !stopping {
                status = cmqtt_loop(current.pointer, 100)
            }
            if stopping {
                if status != 0 { changeOutbox { $0.connectionLost() } }
                break
            }
            let reason = describe(status, errorNumber: cmqtt_errno(current.pointer)), now = clock.now
            let ended = shared.withLock { $0.link.ended(reason, at: now) }
            endSession()
            ended.reports.forEach(report)
            _ = clock.wait(for: wake, until: clock.now + ended.retryAfter)
            if stopping { break }
            do {
                let next = try makeClient()
                shared.withLock { $0.client = next }
                client = next
            } catch {
                report("warning: MQTT: \(error.description); facecam stops publishing")
                return
            }
        }
        if let stop = shared.withLock({ $0.stop }) { finish(stop) }
    }

    /// Drops the session's client: the messages it held unacknowledged wait in our queue again
    /// (events) or are republished with the newest payloads (retained ones).
    private func endSession() {
        shared.withLock { state in
            state.outbox.sessionEnded()
            state.client = nil
        }
    }

    /// Ends the connection as `stop` says: runs the network while the broker has time to acknowledge, says goodbye once it
    /// did, then drops the session, counting the events that never reached the broker as dropped.
    private func finish(_ stop: MQTTStop) {
        var stop = stop
        if let client = shared.withLock({ $0.client }) {
            ticking: while true {
                let now = clock.now
                let action = shared.withLock { stop.tick(now: now, connected: $0.outbox.connected, delivered: $0.outbox.delivered) }
                switch action {
                case .runNetwork:
                    if cmqtt_loop(client.pointer, 50) != 0 { changeOutbox { $0.connectionLost() } }
                case .sayGoodbye:
                    if cmqtt_disconnect(client.pointer) != 0 { changeOutbox { $0.connectionLost() } }
                case .leave:
                    break ticking
                }
            }
        }
        changeOutbox { $0.abandon() }
        endSession()
    }

    private func describe(_ status: Int32, errorNumber: Int32) -> String {
        if status == cmqtt_status_errno() { return String(cString: strerror(errorNumber)) }
        if status == cmqtt_status_tls() {
            let authority = switch (settings.caFile, settings.caOption) {
            case (let file?, let option?): "\(option) \(file)"
            case (let file?, nil): file
            case (nil, let option?): "the system's certificates (else name it with \(option))"
            case (nil, nil): "the system's certificates"
            }
            return "the TLS handshake failed: is the broker's certificate signed by a CA in \(authority)?"
        }
        if status == cmqtt_status_keepalive() { return "it took the connection but did not answer within 30 s" }
        return String(cString: cmqtt_describe(status))
    }

    /// libmosquitto's callbacks, on the connection's thread.
    fileprivate func handle(_ event: cmqtt_event, code: Int32, topic: String?, payload: [UInt8]?) {
        switch event {
        case CMQTT_EVENT_CONNECTED:
            guard code == 0 else {
                let reason = String(cString: cmqtt_describe_refusal(code))
                return shared.withLock { $0.link.refused(reason) }
            }
            let now = clock.now
            if let line = shared.withLock({ $0.link.connected(at: now) }) { report(line) }
            if let client = shared.withLock({ $0.client }) {
                for topic in settings.subscriptions { _ = cmqtt_subscribe(client.pointer, topic, 1) }
            }
            changeOutbox { $0.sessionBegan() }
            pump()
        case CMQTT_EVENT_DISCONNECTED:
            changeOutbox { $0.connectionLost() }
        case CMQTT_EVENT_PUBLISHED:
            changeOutbox { $0.acknowledged(code) }
            pump()
        case CMQTT_EVENT_MESSAGE:
            let deliver = shared.withLock { $0.onMessage }
            if let topic { deliver(topic, payload) }
        default:
            break
        }
    }
}

private let mqttCallback: cmqtt_callback = { context, event, code, topic, payload, length in
    guard let context else { return }
    let connection = Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue()
    let bytes = length > MQTTConnection.longestMessage ? nil : payload.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, length)))) } ?? []
    connection.handle(event, code: code, topic: topic.map { String(cString: $0) }, payload: bytes)
}

private func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

/// The broker cannot be used as asked: a bad TLS setting, a client libmosquitto will not make.
public struct MQTTError: Error, CustomStringConvertible, Sendable {
    public var endpoint: MQTTEndpoint
    public var reason: String
    public var description: String { "MQTT broker \(endpoint): \(reason)" }
}
