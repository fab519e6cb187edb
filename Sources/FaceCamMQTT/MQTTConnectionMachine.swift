/// An MQTT connection's state machine: `MQTTConnection` hands it each event (a message to send, the broker's answer, an
/// acknowledgement, the network's end, a stop, a tick of the connection's clock) with the time it happened, and does the
/// actions it returns, in their order. It makes no call, reads no clock and waits for nothing, so that the connection's
/// rules are tested without a broker or real time (`MQTTConnectionMachineTests`).
///
/// It is made of three parts with rules of their own: what is owed the broker (`MQTTOutbox`), when to try the broker again
/// and what to say of it (`MQTTLink`), and how a stop ends the connection (`MQTTStop`).
struct MQTTConnectionMachine {
    enum Event {
        /// An event message to queue; dropped and counted when the queue is full.
        case send([UInt8], topic: String)
        /// A retained topic's newest payload.
        case retain([UInt8], topic: String)
        /// The broker accepted a session.
        case connected(at: Double)
        /// The new session was subscribed to the command topics: messages may go.
        case subscribed
        /// The broker answered an attempt with a refusal (libmosquitto's words for its code).
        case refused(String)
        /// The client reported the connection lost; the session's messages stay in flight until it ends.
        case lost
        /// The attempt or the session ended: the network failed for `reason`, or (nil) it was left for a stop.
        case ended(reason: String?, at: Double)
        /// The broker acknowledged message `id`.
        case acknowledged(Int32)
        /// What the client did with a `publish` action's batch, handover by handover.
        case handedOver(MQTTOutbox.Batch, [MQTTOutbox.Outcome])
        /// Stop at `at`: the broker has `grace` seconds to acknowledge what is queued and then `farewell`.
        case stop(at: Double, grace: Double, farewell: (payload: [UInt8], topic: String)?)
        /// The connection's clock, while a stop ends the session.
        case tick(at: Double)
    }

    enum Action: Equatable {
        /// A line for the user.
        case report(String)
        /// Subscribe the new session to the command topics, then tell the machine (`subscribed`).
        case subscribe
        /// Hand the batch to the client, outside the connection's lock, then tell what it did (`handedOver`).
        case publish(MQTTOutbox.Batch)
        /// Drop the session's client, wait this many seconds (less when a stop comes), and connect again with a new one.
        case reconnect(after: Double)
        /// A stop is under way: run the network a little and tick again.
        case runNetwork
        /// Everything was delivered: disconnect cleanly, run the network for the goodbye, tick again.
        case sayGoodbye
        /// End the connection's thread: the session, if any, is over, and what never reached the broker counted dropped.
        case leave
    }

    private(set) var outbox: MQTTOutbox
    private var link: MQTTLink
    private(set) var stop: MQTTStop?

    init(endpoint: MQTTEndpoint, queueCapacity: Int, inFlightLimit: Int) {
        outbox = MQTTOutbox(queueCapacity: queueCapacity, inFlightLimit: inFlightLimit)
        link = MQTTLink(endpoint: endpoint)
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .send(let payload, let topic):
            outbox.send(payload, on: topic)
            return due()
        case .retain(let payload, let topic):
            outbox.retain(payload, on: topic)
            return due()
        case .connected(let now):
            return (link.connected(at: now).map { [.report($0)] } ?? []) + [.subscribe]
        case .subscribed:
            outbox.sessionBegan()
            return due()
        case .refused(let reason):
            link.refused(reason)
            return []
        case .lost:
            outbox.connectionLost()
            return []
        case .ended(let reason, let now):
            if stop != nil {
                if reason != nil { outbox.connectionLost() }
                return handle(.tick(at: now))
            }
            let ended = link.ended(reason ?? "the connection ended", at: now)
            outbox.sessionEnded()
            return ended.reports.map(Action.report) + [.reconnect(after: ended.retryAfter)]
        case .acknowledged(let id):
            outbox.acknowledged(id)
            return due()
        case .handedOver(let batch, let outcomes):
            outbox.record(batch, outcomes)
            // The connection is going: what was not handed over goes on the next session.
            return outcomes.contains(.notTaken) ? [] : due()
        case .stop(let now, let grace, let farewell):
            // A stop asked again keeps the first one's grace and goodbye.
            guard stop == nil else { return [] }
            outbox.farewell(farewell)
            stop = MQTTStop(at: now, grace: grace)
            return due()
        case .tick(let now):
            guard var ending = stop else { return [] }
            let action = ending.tick(now: now, connected: outbox.connected, delivered: outbox.delivered)
            stop = ending
            switch action {
            case .runNetwork: return [.runNetwork]
            case .sayGoodbye: return [.sayGoodbye]
            case .leave:
                outbox.abandon()
                outbox.sessionEnded()
                return [.leave]
            }
        }
    }

    /// The batch due now, if any.
    private mutating func due() -> [Action] {
        outbox.takeBatch().map { [.publish($0)] } ?? []
    }
}
