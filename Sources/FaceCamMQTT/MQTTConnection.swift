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
        /// The session's client: replaced only on the connection's thread, while no session is on.
        var client: Client?
        /// What the connection owes, when it tries again, how a stop ends it: every event goes through it.
        var machine: MQTTConnectionMachine
        /// `waitUntilDelivered`'s wake-ups, signalled and let go when nothing is owed.
        var idleWaiters: [DispatchSemaphore] = []
        /// Set by `start`, before the connection's thread begins.
        var onMessage: @Sendable (String, [UInt8]?) -> Void = { _, _ in }
    }

    /// A libmosquitto client, destroyed when the last thread using it (publishing outside the lock) lets it go.
    /// @unchecked Sendable: a C handle, which libmosquitto's threaded API lets any thread publish on.
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
        shared = Mutex(Shared(machine: MQTTConnectionMachine(
            endpoint: settings.endpoint, queueCapacity: settings.queueCapacity, inFlightLimit: Self.inFlightLimit)))
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
        handle(.retain(payload, topic: topic))
    }

    /// Queues a message; dropped (and counted) when the settings' `queueCapacity` are waiting.
    public func send(_ payload: [UInt8], on topic: String) {
        handle(.send(payload, topic: topic))
    }

    public var currentCounts: BrokerCounts {
        shared.withLock { $0.machine.outbox.counts }
    }

    /// Waits until the broker acknowledged everything queued so far, for up to `timeout` seconds; false when it did not.
    public func waitUntilDelivered(timeout: Double) -> Bool {
        let deadline = clock.now + timeout
        let idle = DispatchSemaphore(value: 0)
        let waiting = shared.withLock { state in
            guard !state.machine.outbox.isIdle else { return false }
            state.idleWaiters.append(idle)
            return true
        }
        guard waiting else { return true }
        if clock.wait(for: idle, until: deadline) { return true }
        return shared.withLock { state in
            state.idleWaiters.removeAll { $0 === idle }
            return state.machine.outbox.isIdle
        }
    }

    /// Sends what is queued, then `farewell` (retained: the availability's `offline`), for up to
    /// `grace` seconds. When the broker acknowledged the farewell, says goodbye; else leaves without
    /// one, so that the broker publishes the last will. Stops the thread; what never reached the
    /// broker is counted as dropped.
    public func close(farewell message: (payload: [UInt8], topic: String)? = nil, grace: Double = 2) -> BrokerCounts {
        // The farewell is due now: handed over here, or by the taker of a batch pending.
        handle(.stop(at: clock.now, grace: grace, farewell: message))
        wake.signal()
        let deadline = shared.withLock { $0.machine.stop?.threadDeadline } ?? clock.now
        // A thread stuck in a name lookup is left to the end of the process, its messages counted lost.
        guard clock.wait(for: finished, until: deadline) else {
            return shared.withLock { state in
                var lost = state.machine.outbox.counts
                lost.dropped += state.machine.outbox.waitingEvents
                return lost
            }
        }
        return currentCounts
    }

    /// Hands `event` to the machine and does what it says that any thread may: reports, subscribes, and hands batches to
    /// libmosquitto, outside the lock, telling the machine what became of them. The batch is taken under the lock and its
    /// ids recorded under it after, the outbox keeping an acknowledgement that comes in between for its id; a thread that
    /// finds a batch pending leaves what it added to that batch's taker. Returns what only the connection's thread does.
    @discardableResult
    private func handle(_ event: MQTTConnectionMachine.Event) -> [MQTTConnectionMachine.Action] {
        var (work, client) = step(event)
        var threadActions: [MQTTConnectionMachine.Action] = []
        while !work.isEmpty {
            switch work.removeFirst() {
            case .report(let line):
                report(line)
            case .subscribe:
                if let client { for topic in settings.subscriptions { _ = cmqtt_subscribe(client.pointer, topic, 1) } }
                let next = step(.subscribed)
                work += next.actions
                client = next.client
            case .publish(let batch):
                // A batch is taken only while a session is on, and a session only while its client is: without one, the
                // session is ending, and what was taken goes on the next.
                let (outcomes, refusals) = client.map { hand(batch, to: $0) } ?? (batch.handovers.map { _ in .notTaken }, [])
                let next = step(.handedOver(batch, outcomes))
                work += refusals.map(MQTTConnectionMachine.Action.report) + next.actions
                client = next.client
            case let action:
                threadActions.append(action)
            }
        }
        return threadActions
    }

    /// The machine's answer to `event` and the client to act on, taken together under the lock; wakes
    /// `waitUntilDelivered` when nothing is owed after it.
    private func step(_ event: MQTTConnectionMachine.Event) -> (actions: [MQTTConnectionMachine.Action], client: Client?) {
        shared.withLock { state in
            let actions = state.machine.handle(event)
            if state.machine.outbox.isIdle {
                state.idleWaiters.forEach { $0.signal() }
                state.idleWaiters.removeAll()
            }
            return (actions, state.client)
        }
    }

    /// Hands `batch` to libmosquitto, in order: what it did with each message, and the lines to report of those it refused.
    private func hand(_ batch: MQTTOutbox.Batch, to client: Client) -> ([MQTTOutbox.Outcome], [String]) {
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
        return (outcomes, refusals)
    }

    /// The connection's thread: connects, runs the network, and does what the machine says when the session ends: wait and
    /// connect again with a new client, or end as a stop says.
    private func run() {
        let endpoint = settings.endpoint
        var stopping: Bool { shared.withLock { $0.machine.stop != nil } }
        var client = shared.withLock { $0.client }
        connecting: while let current = client {
            var status: Int32 = stopping ? 0 : endpoint.host.withCString { cmqtt_connect(current.pointer, $0, Int32(endpoint.port)) }
            while status == 0, !stopping {
                status = cmqtt_loop(current.pointer, 100)
            }
            let reason = status == 0 ? nil : describe(status, errorNumber: cmqtt_errno(current.pointer))
            var next = handle(.ended(reason: reason, at: clock.now)).first
            while let action = next {
                switch action {
                case .reconnect(let delay):
                    shared.withLock { $0.client = nil }
                    _ = clock.wait(for: wake, until: clock.now + delay)
                    if stopping {
                        next = handle(.tick(at: clock.now)).first
                        continue
                    }
                    do {
                        let made = try makeClient()
                        shared.withLock { $0.client = made }
                        client = made
                    } catch {
                        report("warning: MQTT: \(error.description); facecam stops publishing")
                        return
                    }
                    continue connecting
                case .runNetwork:
                    if cmqtt_loop(current.pointer, 50) != 0 { handle(.lost) }
                    next = handle(.tick(at: clock.now)).first
                case .sayGoodbye:
                    if cmqtt_disconnect(current.pointer) != 0 { handle(.lost) }
                    next = handle(.tick(at: clock.now)).first
                default:
                    // `.leave`: the machine has counted what never reached the broker.
                    shared.withLock { $0.client = nil }
                    return
                }
            }
            return
        }
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
    fileprivate func received(_ event: cmqtt_event, code: Int32, topic: String?, payload: [UInt8]?) {
        switch event {
        case CMQTT_EVENT_CONNECTED:
            handle(code == 0 ? .connected(at: clock.now) : .refused(String(cString: cmqtt_describe_refusal(code))))
        case CMQTT_EVENT_DISCONNECTED:
            handle(.lost)
        case CMQTT_EVENT_PUBLISHED:
            handle(.acknowledged(code))
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
    connection.received(event, code: code, topic: topic.map { String(cString: $0) }, payload: bytes)
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
