import FaceCam

/// What an MQTT connection owes the broker, apart from the network: the retained topics' newest
/// payloads, the queue of events, the farewell of a stop, and what was handed to the client and not
/// yet acknowledged. `MQTTConnection` feeds it what happens (a message to send, a session begun or
/// ended, an acknowledgement) and asks it what to hand over next; it makes no call and waits for
/// nothing, so that its rules are tested without a broker.
///
/// The rules: retained payloads go first (each topic's newest: on a new session in the order the
/// topics were first set, within one in the order of their latest changes), then the queue, then the farewell; at most `inFlightLimit` wait for acknowledgement.
/// A new session republishes every retained topic. Events a session still held go back to the
/// front of the queue; events beyond the queue's capacity are dropped and counted.
struct MQTTOutbox {
    struct Message: Equatable {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
    }

    /// A message offered by `next()`, and where it came from, for `handedOver` or `refused`.
    struct Handover: Equatable {
        enum Source: Equatable { case retained, queue, farewell }
        var message: Message
        var source: Source
    }

    let queueCapacity: Int
    let inFlightLimit: Int
    private(set) var connected = false
    private var tally = BrokerCounts()
    /// Handed to the client and not yet acknowledged, in the order they were handed over.
    private var inFlight: [(id: Int32, message: Message)] = []
    private var retained: [String: [UInt8]] = [:]
    /// Retained topics in the order they were first set: republished in it after a reconnection.
    private var retainedOrder: [String] = []
    /// Retained topics whose newest payload the broker does not have yet, oldest change first.
    private var unsent: [String] = []
    private var queue: [Message] = []
    /// The last message of a stop (availability `offline`), sent once everything else was handed over.
    private var farewell: Message?
    private var farewellID: Int32?
    private var farewellAcknowledged = false

    init(queueCapacity: Int, inFlightLimit: Int) {
        self.queueCapacity = queueCapacity
        self.inFlightLimit = inFlightLimit
    }

    /// Sets a retained topic's payload; the broker gets only the newest one it has not seen.
    mutating func retain(_ payload: [UInt8], on topic: String) {
        if retained.updateValue(payload, forKey: topic) == nil { retainedOrder.append(topic) }
        unsent.removeAll { $0 == topic }
        unsent.append(topic)
    }

    /// Queues an event; dropped and counted when the queue is full.
    mutating func send(_ payload: [UInt8], on topic: String) {
        guard queue.count < queueCapacity else {
            tally.dropped += 1
            return
        }
        queue.append(Message(topic: topic, payload: payload, retain: false))
    }

    /// The message of a stop, retained, handed over after everything else.
    mutating func farewell(_ message: (payload: [UInt8], topic: String)?) {
        farewell = message.map { Message(topic: $0.topic, payload: $0.payload, retain: true) }
    }

    /// The broker accepted a session: every retained payload again, the newest of each.
    mutating func sessionBegan() {
        connected = true
        unsent = retainedOrder
    }

    /// The client reported the connection lost; the session's messages stay in flight until `sessionEnded`.
    mutating func connectionLost() {
        connected = false
    }

    /// The session's client is gone: the events it held unacknowledged wait at the front of the
    /// queue again (as many as fit), and retained ones will be republished with the newest payloads.
    mutating func sessionEnded() {
        connected = false
        let events = inFlight.filter { !$0.message.retain }.map(\.message)
        let room = max(0, queueCapacity - queue.count)
        tally.dropped += max(0, events.count - room)
        queue.insert(contentsOf: events.suffix(room), at: 0)
        inFlight.removeAll()
        farewellID = nil
    }

    /// The run stops without waiting longer: every event not acknowledged is dropped and counted.
    mutating func abandon() {
        tally.dropped += waitingEvents
        queue.removeAll()
        inFlight.removeAll()
    }

    /// What to hand to the client next, or nil when nothing is due or `inFlightLimit` are waiting.
    func next() -> Handover? {
        guard connected, inFlight.count < inFlightLimit else { return nil }
        if let topic = unsent.first {
            return Handover(message: Message(topic: topic, payload: retained[topic] ?? [], retain: true), source: .retained)
        }
        if let first = queue.first { return Handover(message: first, source: .queue) }
        if let farewell, farewellID == nil { return Handover(message: farewell, source: .farewell) }
        return nil
    }

    /// The client took `handover` as message `id`: it waits for the broker's acknowledgement.
    mutating func handedOver(_ handover: Handover, as id: Int32) {
        take(handover)
        if handover.source == .farewell { farewellID = id }
        inFlight.append((id, handover.message))
    }

    /// The client refused `handover` for good: dropped (an event is counted), so that what is behind it still goes.
    mutating func refused(_ handover: Handover) {
        take(handover)
        if handover.source == .farewell { farewell = nil }
        if !handover.message.retain { tally.dropped += 1 }
    }

    private mutating func take(_ handover: Handover) {
        switch handover.source {
        case .retained: unsent.removeFirst()
        case .queue: queue.removeFirst()
        case .farewell: break
        }
    }

    /// The broker acknowledged message `id`.
    mutating func acknowledged(_ id: Int32) {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return }
        inFlight.remove(at: index)
        tally.acknowledged += 1
        if id == farewellID { farewellAcknowledged = true }
    }

    /// Messages acknowledged and dropped so far, and whether a session is on.
    var counts: BrokerCounts {
        var now = tally
        now.connected = connected
        return now
    }

    /// Connected, with nothing waiting to be handed over or acknowledged.
    var isIdle: Bool { connected && unsent.isEmpty && queue.isEmpty && inFlight.isEmpty }

    /// Everything handed over and acknowledged (the farewell's acknowledgement, when there is one).
    var delivered: Bool { farewell == nil ? unsent.isEmpty && queue.isEmpty && inFlight.isEmpty : farewellAcknowledged }

    /// Events still waiting: what a stop counts as dropped.
    var waitingEvents: Int { queue.count + inFlight.filter { !$0.message.retain }.count }
}
