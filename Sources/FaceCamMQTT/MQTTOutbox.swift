import FaceCam

/// What an MQTT connection owes the broker, apart from the network: the retained topics' newest
/// payloads, the queue of events, the farewell of a stop, and what was handed to the client and not
/// yet acknowledged. `MQTTConnection` feeds it what happens (a message to send, a session begun or
/// ended, an acknowledgement) and takes from it what to hand over next; it makes no call and waits for
/// nothing, so that its rules are tested without a broker.
///
/// The rules: retained payloads go first (each topic's newest: on a new session in the order the
/// topics were first set, within one in the order of their latest changes), then the queue, then the farewell; at most `inFlightLimit` wait for acknowledgement.
/// A new session republishes every retained topic. Events a session still held go back to the
/// front of the queue; events beyond the queue's capacity are dropped and counted.
///
/// Messages are taken a batch at a time, and the client is called outside the connection's lock: until the batch's ids are
/// recorded no other batch is taken, so that the messages reach the client in this order whichever thread hands them
/// over, and an acknowledgement that comes first (libmosquitto's network thread may see it before `cmqtt_publish` returns
/// the id) waits here for its id.
struct MQTTOutbox {
    struct Message: Equatable {
        var topic: String
        var payload: [UInt8]
        var retain: Bool
    }

    /// A message taken to be handed to the client; the farewell is told apart, since its acknowledgement is delivery.
    struct Handover: Equatable {
        var message: Message
        var isFarewell = false
    }

    /// Messages taken together by `takeBatch`, to be handed to the client in this order and then `record`ed.
    struct Batch: Equatable {
        let number: Int
        let handovers: [Handover]
    }

    /// What the client did with a handover.
    enum Outcome: Equatable {
        /// Took it as message `id`, which the broker's acknowledgement names.
        case taken(id: Int32)
        /// Refused it for good (a topic or payload it will never take): dropped, and an event counted.
        case refused
        /// Did not take it because the connection is going: it goes again on the next session.
        case notTaken
    }

    let queueCapacity: Int
    let inFlightLimit: Int
    private(set) var connected = false
    private var tally = BrokerCounts()
    /// Handed to the client and not yet acknowledged, in the order they were handed over; without an id when the client
    /// did not take it (the session's end puts it back).
    private var inFlight: [(id: Int32?, handover: Handover)] = []
    /// The batch being handed over, whose ids are not recorded yet.
    private var pending: Batch?
    private var batchesTaken = 0
    /// Acknowledgements of ids not recorded yet, kept while a batch is pending: its own, come before its record.
    private var earlyAcknowledgements: Set<Int32> = []
    private var retained: [String: [UInt8]] = [:]
    /// Retained topics in the order they were first set: republished in it after a reconnection.
    private var retainedOrder: [String] = []
    /// Retained topics whose newest payload the broker does not have yet, oldest change first.
    private var unsent: [String] = []
    private var queue: [Message] = []
    /// The last message of a stop (availability `offline`), sent once everything else was handed over.
    private var farewell: Message?
    /// Whether this session took the farewell to hand over.
    private var farewellTaken = false
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

    /// The session's client is gone: the events it held unacknowledged (or was being handed) wait at the front of the
    /// queue again (as many as fit), and retained ones will be republished with the newest payloads. A batch still
    /// pending is forgotten: its record changes nothing.
    mutating func sessionEnded() {
        connected = false
        let events = (inFlight.map(\.handover) + (pending?.handovers ?? [])).map(\.message).filter { !$0.retain }
        let room = max(0, queueCapacity - queue.count)
        tally.dropped += max(0, events.count - room)
        queue.insert(contentsOf: events.suffix(room), at: 0)
        inFlight.removeAll()
        pending = nil
        earlyAcknowledgements.removeAll()
        farewellTaken = false
    }

    /// The run stops without waiting longer: every event not acknowledged is dropped and counted.
    mutating func abandon() {
        tally.dropped += waitingEvents
        queue.removeAll()
        inFlight.removeAll()
        pending = nil
    }

    /// Takes what is due to be handed to the client now, in order, up to `inFlightLimit` waiting; nil when nothing is
    /// due, the session is not on, or a batch is pending (its taker takes the next after recording it).
    mutating func takeBatch() -> Batch? {
        guard connected, pending == nil else { return nil }
        var handovers: [Handover] = []
        while inFlight.count + handovers.count < inFlightLimit, let handover = takeNext() { handovers.append(handover) }
        guard !handovers.isEmpty else { return nil }
        batchesTaken += 1
        pending = Batch(number: batchesTaken, handovers: handovers)
        return pending
    }

    private mutating func takeNext() -> Handover? {
        if !unsent.isEmpty {
            let topic = unsent.removeFirst()
            return Handover(message: Message(topic: topic, payload: retained[topic] ?? [], retain: true))
        }
        if !queue.isEmpty { return Handover(message: queue.removeFirst()) }
        if let farewell, !farewellTaken {
            farewellTaken = true
            return Handover(message: farewell, isFarewell: true)
        }
        return nil
    }

    /// What the client did with each of `batch`'s handovers, in their order.
    mutating func record(_ batch: Batch, _ outcomes: [Outcome]) {
        guard pending?.number == batch.number else { return }
        pending = nil
        defer { earlyAcknowledgements.removeAll() }
        for (handover, outcome) in zip(batch.handovers, outcomes) {
            switch outcome {
            case .taken(let id):
                if earlyAcknowledgements.remove(id) != nil {
                    count(acknowledged: handover)
                } else {
                    inFlight.append((id, handover))
                }
            case .refused:
                if handover.isFarewell { farewell = nil }
                if !handover.message.retain { tally.dropped += 1 }
            case .notTaken:
                inFlight.append((nil, handover))
            }
        }
    }

    /// The broker acknowledged message `id`.
    mutating func acknowledged(_ id: Int32) {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else {
            if pending != nil { earlyAcknowledgements.insert(id) }
            return
        }
        count(acknowledged: inFlight.remove(at: index).handover)
    }

    private mutating func count(acknowledged handover: Handover) {
        tally.acknowledged += 1
        if handover.isFarewell { farewellAcknowledged = true }
    }

    /// Messages acknowledged and dropped so far, and whether a session is on.
    var counts: BrokerCounts {
        var now = tally
        now.connected = connected
        return now
    }

    /// Nothing waits to be handed over or acknowledged (the farewell aside).
    private var owesNothing: Bool { unsent.isEmpty && queue.isEmpty && inFlight.isEmpty && pending == nil }

    /// Connected, with nothing waiting to be handed over or acknowledged.
    var isIdle: Bool { connected && owesNothing }

    /// Everything handed over and acknowledged (the farewell's acknowledgement, when there is one).
    var delivered: Bool { farewell == nil ? owesNothing : farewellAcknowledged }

    /// Events still waiting: what a stop counts as dropped.
    var waitingEvents: Int {
        queue.count + (inFlight.map(\.handover) + (pending?.handovers ?? [])).filter { !$0.message.retain }.count
    }
}
