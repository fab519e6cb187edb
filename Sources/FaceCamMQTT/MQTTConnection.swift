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
        var stopping = false
        /// How long a stop waits for the broker's acknowledgements; set by `close`, before `stopping`.
        var grace = 2.0
        var outbox: MQTTOutbox
        /// The connection's state as its thread sees it (only that thread changes it).
        var link: MQTTLink
        /// Set by `start`, before the connection's thread begins.
        var onMessage: @Sendable (String, [UInt8]?) -> Void = { _, _ in }
    }

    /// A libmosquitto client, which its threaded API lets any thread publish on.
    private struct Client: @unchecked Sendable {
        let pointer: OpaquePointer
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

    deinit {
        if let client = shared.withLock({ $0.client }) { cmqtt_destroy(client.pointer) }
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
        return Client(pointer: made)
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
        shared.withLock { state in
            state.outbox.retain(payload, on: topic)
            pump(&state)
        }
    }

    /// Queues a message; dropped (and counted) when the settings' `queueCapacity` are waiting.
    public func send(_ payload: [UInt8], on topic: String) {
        shared.withLock { state in
            state.outbox.send(payload, on: topic)
            pump(&state)
        }
    }

    public var currentCounts: BrokerCounts {
        shared.withLock { $0.outbox.counts }
    }

    /// Waits until the broker acknowledged everything queued so far, for up to `timeout` seconds; false when it did not.
    public func waitUntilDelivered(timeout: Double) -> Bool {
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if shared.withLock({ $0.outbox.isIdle }) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Sends what is queued, then `farewell` (retained: the availability's `offline`), for up to
    /// `grace` seconds. When the broker acknowledged the farewell, says goodbye; else leaves without
    /// one, so that the broker publishes the last will. Stops the thread; what never reached the
    /// broker is counted as dropped.
    public func close(farewell message: (payload: [UInt8], topic: String)? = nil, grace: Double = 2) -> BrokerCounts {
        shared.withLock { state in
            state.outbox.farewell(message)
            state.grace = grace
            state.stopping = true
            pump(&state)
        }
        wake.signal()
        // The thread waits at most `grace` for acknowledgements and a moment for the goodbye; a
        // thread stuck in a name lookup is left to the end of the process, its messages counted lost.
        guard finished.wait(timeout: .now() + grace + 3) == .success else {
            var lost = currentCounts
            lost.dropped += shared.withLock { $0.outbox.waitingEvents }
            return lost
        }
        return currentCounts
    }

    /// Hands libmosquitto what the outbox says is due, until it says nothing more is. Called under the lock, so that an
    /// acknowledgement (handled under it on the connection's thread) never comes before its handover is recorded.
    private func pump(_ state: inout Shared) {
        guard let client = state.client else { return }
        while let handover = state.outbox.next() {
            let message = handover.message
            var id: Int32 = 0
            let status = message.payload.withUnsafeBufferPointer { bytes in
                cmqtt_publish(client.pointer, message.topic, bytes.baseAddress, Int32(bytes.count), 1, message.retain, &id)
            }
            // The connection is going: what was not handed over is sent on the next one.
            if status != 0, cmqtt_status_is_disconnected(status) { return }
            guard status == 0 else {
                state.outbox.refused(handover)
                report("warning: MQTT: cannot publish to \(message.topic) (\(String(cString: cmqtt_describe(status)))); dropped it")
                continue
            }
            state.outbox.handedOver(handover, as: id)
        }
    }

    /// The connection's thread: connect, run the network, and on any failure wait and connect again
    /// with a new client.
    private func run() {
        let endpoint = settings.endpoint
        while !shared.withLock({ $0.stopping }) {
            guard let client = shared.withLock({ $0.client }) else { return }
            var status = endpoint.host.withCString { cmqtt_connect(client.pointer, $0, Int32(endpoint.port)) }
            while status == 0, !shared.withLock({ $0.stopping }) {
                status = cmqtt_loop(client.pointer, 100)
            }
            if shared.withLock({ $0.stopping }) {
                goodbye(client, status: status)
                return
            }
            let reason = describe(status, errorNumber: cmqtt_errno(client.pointer)), now = clock.now
            let ended = shared.withLock { $0.link.ended(reason, at: now) }
            endSession()
            ended.reports.forEach(report)
            _ = wake.wait(timeout: .now() + ended.retryAfter)
            if shared.withLock({ $0.stopping }) { break }
            do {
                let next = try makeClient()
                shared.withLock { $0.client = next }
            } catch {
                report("warning: MQTT: \(error.description); facecam stops publishing")
                return
            }
        }
        shared.withLock { $0.client }.map { goodbye($0, status: 0) }
    }

    /// Drops the session's client: the messages it held unacknowledged wait in our queue again
    /// (events) or are republished with the newest payloads (retained ones).
    private func endSession() {
        let old = shared.withLock { state in
            state.outbox.sessionEnded()
            defer { state.client = nil }
            return state.client
        }
        if let old { cmqtt_destroy(old.pointer) }
    }

    /// On a stop: waits up to the grace for the farewell's acknowledgement (without one, for every
    /// message's), then disconnects cleanly; or, when it did not come, leaves without a goodbye, so
    /// that the broker publishes the last will.
    private func goodbye(_ client: Client, status: Int32) {
        let (connected, grace) = shared.withLock { ($0.outbox.connected, $0.grace) }
        if status == 0, connected {
            let delivered = { self.shared.withLock { $0.outbox.delivered } }
            let deadline = clock.now + grace
            while clock.now < deadline, !delivered(), cmqtt_loop(client.pointer, 50) == 0 {}
            if delivered(), cmqtt_disconnect(client.pointer) == 0 {
                let end = clock.now + 0.5
                while clock.now < end, cmqtt_loop(client.pointer, 50) == 0 {}
            }
        }
        shared.withLock { $0.outbox.abandon() }
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
            shared.withLock { state in
                if let client = state.client {
                    for topic in settings.subscriptions { _ = cmqtt_subscribe(client.pointer, topic, 1) }
                }
                state.outbox.sessionBegan()
                pump(&state)
            }
        case CMQTT_EVENT_DISCONNECTED:
            shared.withLock { $0.outbox.connectionLost() }
        case CMQTT_EVENT_PUBLISHED:
            shared.withLock { state in
                state.outbox.acknowledged(code)
                pump(&state)
            }
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
