import Testing
@testable import FaceCamMQTT

/// The MQTT connection as one machine: each test plays what libmosquitto and the connection's clock would report, with the
/// times written in the test, and checks the actions the connection is told to take. No broker and no waiting; MQTTTests
/// runs the same connection against a real mosquitto.
struct MQTTConnectionMachineTests {
    private typealias Action = MQTTConnectionMachine.Action
    private let endpoint = try! MQTTEndpoint(parsing: "mqtt://broker.lan:1883")

    private func machine(queueCapacity: Int = 100) -> MQTTConnectionMachine {
        MQTTConnectionMachine(endpoint: endpoint, queueCapacity: queueCapacity, inFlightLimit: 16)
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// "topic=payload" of each message the actions publish; the other actions as themselves.
    private func described(_ actions: [Action]) -> [String] {
        actions.flatMap { action -> [String] in
            switch action {
            case .publish(let batch):
                batch.handovers.map { "\($0.message.topic)=\(String(decoding: $0.message.payload, as: UTF8.self))" }
            case .report(let line): ["report: \(line)"]
            default: ["\(action)"]
            }
        }
    }

    /// Feeds `event`, then tells the machine the client subscribed when told to, and took every message it was told to
    /// publish, as ids from `firstID`; returns every action, those of the subscription and the hand-overs included.
    private func play(_ event: MQTTConnectionMachine.Event, on machine: inout MQTTConnectionMachine, firstID: Int32 = 1) -> [Action] {
        var actions: [Action] = []
        var work = machine.handle(event)
        var id = firstID
        while !work.isEmpty {
            let action = work.removeFirst()
            actions.append(action)
            if case .subscribe = action { work += machine.handle(.subscribed) }
            if case .publish(let batch) = action {
                work += machine.handle(.handedOver(batch, batch.handovers.indices.map { .taken(id: id + Int32($0)) }))
                id += Int32(batch.handovers.count)
            }
        }
        return actions
    }

    @Test func messagesWaitForTheSessionThenGoRetainedFirst() {
        var machine = machine()
        #expect(machine.handle(.send(bytes("entered"), topic: "events")).isEmpty)
        #expect(machine.handle(.retain(bytes("ON"), topic: "state")).isEmpty)
        #expect(described(play(.connected(at: 0), on: &machine)) == ["subscribe", "state=ON", "events=entered"])
        #expect(!machine.outbox.isIdle)
        #expect(play(.acknowledged(1), on: &machine).isEmpty)
        #expect(play(.acknowledged(2), on: &machine).isEmpty)
        #expect(machine.outbox.isIdle && machine.outbox.counts.acknowledged == 2)
        // Connected, a message goes at once.
        #expect(described(play(.send(bytes("left"), topic: "events"), on: &machine, firstID: 3)) == ["events=left"])
    }

    /// The broker cannot be reached: one line, then waits that double; once it answers, one line, and the retained topics
    /// again.
    @Test func anOutageIsSaidOnceAndTheWaitsDouble() {
        var machine = machine()
        _ = machine.handle(.retain(bytes("online"), topic: "availability"))
        var now = 0.0, waits: [Double] = [], reports: [String] = []
        for _ in 0..<4 {
            for action in machine.handle(.ended(reason: "Connection refused", at: now)) {
                switch action {
                case .reconnect(let after): waits.append(after); now += after
                case .report(let line): reports.append(line)
                default: Issue.record("unexpected \(action)")
                }
            }
        }
        #expect(waits == [0.5, 1, 2, 4])
        #expect(reports == [
            "warning: MQTT: cannot reach the broker at mqtt://broker.lan:1883 (Connection refused); detection goes on and "
                + "facecam keeps trying",
        ])
        #expect(described(play(.connected(at: now), on: &machine)) == [
            "report: MQTT: connected to mqtt://broker.lan:1883", "subscribe", "availability=online",
        ])
    }

    /// A refusal names the broker's reason rather than the socket's, and a session lost puts its unacknowledged events
    /// back to go first on the next one.
    @Test func aLostSessionsEventsGoAgainOnTheNext() {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        #expect(described(play(.send(bytes("one"), topic: "events"), on: &machine)) == ["events=one"])
        #expect(machine.handle(.lost).isEmpty)
        // Not connected: queued, not published.
        #expect(machine.handle(.send(bytes("two"), topic: "events")).isEmpty)
        #expect(described(machine.handle(.ended(reason: "Connection reset by peer", at: 30))) == [
            "report: warning: MQTT: lost the broker at mqtt://broker.lan:1883 (Connection reset by peer); detection goes on "
                + "and facecam reconnects",
            "reconnect(after: 0.5)",
        ])
        #expect(machine.handle(.refused("not authorised")).isEmpty)
        #expect(described(machine.handle(.ended(reason: "Connection reset by peer", at: 31))) == [
            "report: warning: MQTT: mqtt://broker.lan:1883: the broker refused facecam: not authorised", "reconnect(after: 1.0)",
        ])
        #expect(described(play(.connected(at: 40), on: &machine, firstID: 5)) == [
            "report: MQTT: connected to mqtt://broker.lan:1883", "subscribe", "events=one", "events=two",
        ])
    }

    /// A message the client did not take because the connection is going is not offered again on this session, and goes
    /// first on the next.
    @Test func aConnectionGoingTakesNoMore() throws {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        let first = machine.handle(.send(bytes("one"), topic: "events"))
        guard case .publish(let batch) = try #require(first.first) else { Issue.record("\(first)"); return }
        _ = machine.handle(.send(bytes("two"), topic: "events"))
        #expect(machine.handle(.handedOver(batch, [.notTaken])).isEmpty)
        #expect(machine.handle(.ended(reason: "Broken pipe", at: 1)).last == .reconnect(after: 0.5))
        #expect(described(play(.connected(at: 2), on: &machine)) == [
            "report: MQTT: connected to mqtt://broker.lan:1883", "subscribe", "events=one", "events=two",
        ])
    }

    /// Nothing goes before the session is subscribed to the command topics.
    @Test func messagesWaitForTheSubscription() {
        var machine = machine()
        _ = machine.handle(.send(bytes("entered"), topic: "events"))
        #expect(machine.handle(.connected(at: 0)) == [.subscribe])
        #expect(machine.handle(.send(bytes("left"), topic: "events")).isEmpty)
        #expect(described(machine.handle(.subscribed)) == ["events=entered", "events=left"])
    }

    /// A stop: the farewell goes last, the network runs until the broker acknowledged it, then a goodbye, given half a
    /// second to go out.
    @Test func aStopDeliversTheFarewellThenSaysGoodbye() {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        _ = play(.send(bytes("left"), topic: "events"), on: &machine)
        #expect(described(play(.stop(at: 10, grace: 2, farewell: (bytes("offline"), "availability")), on: &machine, firstID: 2))
            == ["availability=offline"])
        #expect(machine.stop?.threadDeadline == 10 + 2 + MQTTStop.threadTime)
        // The network was left for the stop, not lost.
        #expect(machine.handle(.ended(reason: nil, at: 10.1)) == [.runNetwork])
        _ = machine.handle(.acknowledged(1))
        #expect(machine.handle(.tick(at: 10.2)) == [.runNetwork])
        _ = machine.handle(.acknowledged(2))
        #expect(machine.handle(.tick(at: 10.3)) == [.sayGoodbye])
        #expect(machine.handle(.tick(at: 10.5)) == [.runNetwork])
        #expect(machine.handle(.tick(at: 10.8)) == [.leave])
        #expect(machine.outbox.counts.acknowledged == 2 && machine.outbox.counts.dropped == 0 && !machine.outbox.counts.connected)
    }

    /// The broker does not acknowledge within the grace: facecam leaves without a goodbye (the broker then publishes the
    /// last will), and the event it never acknowledged is counted dropped.
    @Test func aStopWhoseGraceRunsOutLeavesAndCountsTheRest() {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        _ = play(.send(bytes("left"), topic: "events"), on: &machine)
        _ = play(.stop(at: 10, grace: 2, farewell: nil), on: &machine)
        #expect(machine.handle(.tick(at: 11.9)) == [.runNetwork])
        #expect(machine.handle(.tick(at: 12.0)) == [.leave])
        #expect(machine.outbox.counts.dropped == 1 && machine.outbox.counts.acknowledged == 0)
    }

    /// A stop during the wait before the next attempt leaves at once, counting what never went.
    @Test func aStopWithoutASessionLeavesAtOnce() {
        var machine = machine()
        _ = machine.handle(.send(bytes("left"), topic: "events"))
        #expect(machine.handle(.ended(reason: "Connection refused", at: 0)).last == .reconnect(after: 0.5))
        #expect(machine.handle(.stop(at: 0.2, grace: 2, farewell: (bytes("offline"), "availability"))).isEmpty)
        #expect(machine.handle(.tick(at: 0.2)) == [.leave])
        #expect(machine.outbox.counts.dropped == 1)
    }

    /// A stop before the first attempt: the network is left unused (the attempt ends with no reason), and the run leaves.
    @Test func aStopBeforeTheFirstAttemptLeaves() {
        var machine = machine()
        _ = machine.handle(.send(bytes("left"), topic: "events"))
        #expect(machine.handle(.stop(at: 0, grace: 2, farewell: nil)).isEmpty)
        #expect(machine.handle(.ended(reason: nil, at: 0)) == [.leave])
        #expect(machine.outbox.counts.dropped == 1)
    }

    /// The network fails while a stop waits for acknowledgements: no goodbye, the unacknowledged event counted dropped.
    @Test func aNetworkThatFailsDuringAStopLeaves() {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        _ = play(.send(bytes("left"), topic: "events"), on: &machine)
        _ = machine.handle(.stop(at: 10, grace: 2, farewell: nil))
        #expect(machine.handle(.ended(reason: "Connection reset by peer", at: 10.1)) == [.leave])
        #expect(machine.outbox.counts.dropped == 1 && machine.outbox.counts.acknowledged == 0)
    }

    /// A stop asked again keeps the first one's grace.
    @Test func aSecondStopKeepsTheFirstsGrace() {
        var machine = machine()
        _ = play(.connected(at: 0), on: &machine)
        _ = play(.send(bytes("left"), topic: "events"), on: &machine)
        _ = machine.handle(.stop(at: 10, grace: 2, farewell: nil))
        #expect(machine.handle(.stop(at: 11, grace: 5, farewell: (bytes("offline"), "availability"))).isEmpty)
        #expect(machine.handle(.tick(at: 12)) == [.leave])
    }
}
