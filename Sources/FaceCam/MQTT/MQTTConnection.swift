import CMQTT
import Dispatch
import Foundation

/// A connection to an MQTT broker that never makes its callers wait: `retain` and `send` queue a
/// message and return, and a thread of the connection's own talks to the broker, connects,
/// reconnects with backoff, and republishes the retained messages after each (re)connection.
///
/// What waits is bounded: at most `inFlightLimit` messages are handed to libmosquitto
/// unacknowledged; behind them, each retained topic keeps only its newest payload and other
/// messages wait in a queue of the settings' capacity, beyond which they are dropped and counted. All
/// messages go at QoS 1, so an acknowledgement says the broker has them.
public final class MQTTConnection: @unchecked Sendable {
    public struct Settings: Sendable {
        public var endpoint: MQTTEndpoint
        public var clientID: String
        public var password: String?
        /// The CA certificates that vouch for an mqtts:// broker (else the system's).
        public var caFile: String?
        /// The broker publishes this, retained, when the connection is lost without a goodbye.
        public var willTopic: String?
        public var willPayload: String?
        /// Subscribed on every connection; their messages go to `onMessage`.
        public var subscriptions: [String]
        /// How many messages (beside the retained ones) wait for the broker; more are dropped and counted.
        public var queueCapacity: Int

        public init(
            endpoint: MQTTEndpoint, clientID: String, password: String? = nil, caFile: String? = nil,
            willTopic: String? = nil, willPayload: String? = nil, subscriptions: [String] = [], queueCapacity: Int = 100
        ) {
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

    public struct Counts: Sendable, Equatable {
        /// Messages the broker acknowledged.
        public var acknowledged = 0
        /// Messages dropped because the queue was full (the broker gone or slow).
        public var dropped = 0
        public var connected = false

        public init() {}
    }

    public static let inFlightLimit = 16
    /// Waits between connection attempts: doubling from the first to the last.
    static let backoff = (first: 0.5, last: 30.0)

    private let settings: Settings
    private let report: @Sendable (String) -> Void
    private let onMessage: @Sendable (String, [UInt8]) -> Void
    private var client: OpaquePointer?
    private let lock = NSLock()
    // Guarded by `lock`.
    private var connected = false
    private var stopping = false
    private var inFlight: Set<Int32> = []
    private var retained: [String: [UInt8]] = [:]
    /// Retained topics in the order they were first set: republished in it after a reconnection.
    private var retainedOrder: [String] = []
    /// Retained topics whose newest payload the broker does not have yet, oldest change first.
    private var unsent: [String] = []
    private var queue: [(topic: String, payload: [UInt8])] = []
    private var counts = Counts()
    // Used on the connection's thread only.
    private var refusal: String?
    private var backoffDelay = MQTTConnection.backoff.first
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// Makes the client (no network yet); `onMessage` is called on the connection's thread.
    public init(
        settings: Settings, report: @escaping @Sendable (String) -> Void,
        onMessage: @escaping @Sendable (String, [UInt8]) -> Void = { _, _ in }
    ) throws(MQTTError) {
        self.settings = settings
        self.report = report
        self.onMessage = onMessage
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
            throw MQTTError(endpoint: settings.endpoint, reason: String(cString: message))
        }
        client = made
    }

    deinit {
        if let client { cmqtt_destroy(client) }
    }

    /// Starts the connection's thread: the first attempt to connect is made there, so nothing waits for the broker.
    public func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "facecam.mqtt"
        self.thread = thread
        thread.start()
    }

    /// Sets a retained topic's payload (an empty one clears it at the broker). The broker gets the
    /// newest payload of each topic, in the order of their latest changes.
    public func retain(_ payload: [UInt8], on topic: String) {
        lock.withLock {
            if retained.updateValue(payload, forKey: topic) == nil { retainedOrder.append(topic) }
            unsent.removeAll { $0 == topic }
            unsent.append(topic)
            pump()
        }
    }

    /// Queues a message; dropped (and counted) when the settings' `queueCapacity` are waiting.
    public func send(_ payload: [UInt8], on topic: String) {
        lock.withLock {
            guard queue.count < settings.queueCapacity else {
                counts.dropped += 1
                return
            }
            queue.append((topic, payload))
            pump()
        }
    }

    public var currentCounts: Counts { lock.withLock { counts } }

    /// Waits until the broker acknowledged everything queued so far, for up to `timeout` seconds; false when it did not.
    public func waitUntilDelivered(timeout: Double) -> Bool {
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            if lock.withLock({ connected && unsent.isEmpty && queue.isEmpty && inFlight.isEmpty }) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Sends what is queued, `retained` last (the availability's "offline"), for up to `grace`
    /// seconds, says goodbye so that the broker does not publish the last will, and stops the thread.
    public func close(retaining final: (payload: [UInt8], topic: String)? = nil, grace: Double = 2) -> Counts {
        if let final { retain(final.payload, on: final.topic) }
        lock.withLock { stopping = true }
        wake.signal()
        // The thread waits at most `grace` for acknowledgements and a moment for the goodbye.
        if finished.wait(timeout: .now() + grace + 3) == .success, let client {
            cmqtt_destroy(client)
            self.client = nil
        }
        return currentCounts
    }

    /// Hands queued messages to libmosquitto while fewer than `inFlightLimit` wait for acknowledgement. Under `lock`.
    private func pump() {
        guard connected, let client else { return }
        while inFlight.count < Self.inFlightLimit {
            let message: (topic: String, payload: [UInt8], retain: Bool)
            if let topic = unsent.first {
                message = (topic, retained[topic] ?? [], true)
            } else if let first = queue.first {
                message = (first.topic, first.payload, false)
            } else {
                return
            }
            var id: Int32 = 0
            let status = message.payload.withUnsafeBufferPointer { bytes in
                cmqtt_publish(client, message.topic, bytes.baseAddress, Int32(bytes.count), 1, message.retain, &id)
            }
            // The connection went: what was not handed over is sent after the next one.
            guard status == 0 else { return }
            if message.retain { unsent.removeFirst() } else { queue.removeFirst() }
            inFlight.insert(id)
        }
    }

    /// The connection's thread: connect, run the network, and on any failure wait and connect again.
    private func run() {
        guard let client else { return }
        var outage: String?
        var everConnected = false
        let endpoint = settings.endpoint
        while !lock.withLock({ stopping }) {
            var status = settings.endpoint.host.withCString { cmqtt_connect(client, $0, Int32(endpoint.port)) }
            while status == 0, !lock.withLock({ stopping }) {
                status = cmqtt_loop(client, 100)
                if status == 0, outage != nil, lock.withLock({ connected }) {
                    report("MQTT: connected to \(endpoint)")
                    outage = nil
                }
                if lock.withLock({ connected }) { everConnected = true }
            }
            if lock.withLock({ stopping }) { break }
            lock.withLock {
                connected = false
                counts.connected = false
            }
            let reason = refusal ?? describe(status)
            refusal = nil
            if outage == nil {
                report(everConnected
                    ? "warning: MQTT: lost the broker at \(endpoint) (\(reason)); detection goes on and facecam reconnects"
                    : "warning: MQTT: cannot reach the broker at \(endpoint) (\(reason)); detection goes on and facecam keeps trying")
            } else if reason != outage, reason.hasPrefix(Self.refused) {
                // Wrong credentials are worth a line of their own, once: waiting will not cure them.
                report("warning: MQTT: \(endpoint): \(reason)")
            }
            outage = reason
            _ = wake.wait(timeout: .now() + backoffDelay)
            backoffDelay = min(backoffDelay * 2, Self.backoff.last)
        }
        goodbye(client)
    }

    /// On a stop: waits up to the grace for the queued messages to be acknowledged, then disconnects cleanly.
    private func goodbye(_ client: OpaquePointer) {
        guard lock.withLock({ connected }) else { return }
        let deadline = monotonicSeconds() + 2
        while monotonicSeconds() < deadline,
              lock.withLock({ connected && !(unsent.isEmpty && queue.isEmpty && inFlight.isEmpty) }) {
            if cmqtt_loop(client, 50) != 0 { return }
        }
        guard cmqtt_disconnect(client) == 0 else { return }
        let end = monotonicSeconds() + 0.5
        while monotonicSeconds() < end, cmqtt_loop(client, 50) == 0 {}
    }

    private static let refused = "the broker refused facecam: "

    private func describe(_ status: Int32) -> String {
        if status == cmqtt_status_errno() { return String(cString: strerror(errno)) }
        if status == cmqtt_status_tls() {
            return "the TLS handshake failed: is the broker's certificate signed by a CA in "
                + (settings.caFile.map { "--mqtt-ca \($0)" } ?? "the system's certificates (else name it with --mqtt-ca)") + "?"
        }
        return String(cString: cmqtt_describe(status))
    }

    /// libmosquitto's callbacks, on the connection's thread.
    fileprivate func handle(_ event: cmqtt_event, code: Int32, topic: String?, payload: [UInt8]) {
        switch event {
        case CMQTT_EVENT_CONNECTED:
            guard code == 0 else {
                refusal = Self.refused + String(cString: cmqtt_describe_refusal(code))
                return
            }
            backoffDelay = Self.backoff.first
            if let client {
                for topic in settings.subscriptions { _ = cmqtt_subscribe(client, topic, 1) }
            }
            lock.withLock {
                connected = true
                counts.connected = true
                // A new session: what was unacknowledged is sent again with the retained payloads, newest each.
                inFlight.removeAll()
                unsent = retainedOrder
                pump()
            }
        case CMQTT_EVENT_DISCONNECTED:
            lock.withLock {
                connected = false
                counts.connected = false
            }
        case CMQTT_EVENT_PUBLISHED:
            lock.withLock {
                if inFlight.remove(code) != nil { counts.acknowledged += 1 }
                pump()
            }
        case CMQTT_EVENT_MESSAGE:
            if let topic { onMessage(topic, payload) }
        default:
            break
        }
    }
}

private let mqttCallback: cmqtt_callback = { context, event, code, topic, payload, length in
    guard let context else { return }
    let connection = Unmanaged<MQTTConnection>.fromOpaque(context).takeUnretainedValue()
    let bytes = payload.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, length)))) } ?? []
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
