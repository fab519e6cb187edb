import FaceCam
import Foundation
import Synchronization
import Testing
@testable import FaceCamMQTT

/// How a stop ends the MQTT connection, on a clock moved by hand: no broker and no waiting. (MQTTTests stops facecam
/// against a real mosquitto, frozen and not.)
struct MQTTStopTests {
    @Test func onceEverythingIsDeliveredItSaysGoodbyeAndWaitsBrieflyForIt() {
        let clock = ManualClock()
        clock.set(to: 100)
        var stop = MQTTStop(at: clock.now, grace: 2)
        #expect(stop.tick(now: clock.now, connected: true, delivered: false) == .runNetwork)
        clock.advance(by: 1.5)
        #expect(stop.tick(now: clock.now, connected: true, delivered: false) == .runNetwork)
        #expect(stop.tick(now: clock.now, connected: true, delivered: true) == .sayGoodbye)
        // The goodbye has half a second to go out, even past the grace.
        clock.advance(by: 0.4)
        #expect(stop.tick(now: clock.now, connected: true, delivered: true) == .runNetwork)
        clock.advance(by: 0.2)
        #expect(stop.tick(now: clock.now, connected: true, delivered: true) == .leave)
    }

    /// Without the acknowledgement the stop leaves when the grace runs out: no goodbye, so that the broker publishes the
    /// last will.
    @Test func withoutTheAcknowledgementItLeavesWhenTheGraceRunsOut() {
        let clock = ManualClock()
        var stop = MQTTStop(at: clock.now, grace: 2)
        var actions: [MQTTStop.Action] = []
        for _ in 0..<5 {
            clock.advance(by: 0.5)
            actions.append(stop.tick(now: clock.now, connected: true, delivered: false))
        }
        #expect(actions == [.runNetwork, .runNetwork, .runNetwork, .leave, .leave])
    }

    @Test func withoutASessionItLeavesAtOnce() {
        let clock = ManualClock()
        var stop = MQTTStop(at: clock.now, grace: 2)
        #expect(stop.tick(now: clock.now, connected: false, delivered: true) == .leave)
        #expect(stop.tick(now: clock.now, connected: false, delivered: false) == .leave)
    }

    /// Whoever asked for the stop waits for the connection's thread 3 s beyond the grace.
    @Test func theThreadIsWaitedForThreeSecondsBeyondTheGrace() {
        let clock = ManualClock()
        clock.set(to: 10)
        #expect(MQTTStop(at: clock.now, grace: 2).threadDeadline == 15)
        #expect(MQTTStop(at: clock.now, grace: 0.5).threadDeadline == 13.5)
    }

    /// A stop as the connection plays it: the outbox says whether a session is on and whether the farewell was
    /// acknowledged; the session's end after the goodbye ends the stop, and the events never acknowledged are counted as
    /// dropped.
    @Test func aStopPlayedWithTheOutbox() throws {
        let clock = ManualClock()
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.sessionBegan()
        outbox.send(Array("e1".utf8), on: "events")
        outbox.send(Array("e2".utf8), on: "events")
        var stop = MQTTStop(at: clock.now, grace: 2)
        outbox.farewell((payload: Array("offline".utf8), topic: "availability"))
        let taken = outbox.takeBatch()
        let batch = try #require(taken)
        outbox.record(batch, [.taken(id: 1), .taken(id: 2), .taken(id: 3)])
        func tick() -> MQTTStop.Action { stop.tick(now: clock.now, connected: outbox.connected, delivered: outbox.delivered) }
        #expect(tick() == .runNetwork)
        outbox.acknowledged(1)
        clock.advance(by: 1)
        #expect(tick() == .runNetwork)
        outbox.acknowledged(3)
        #expect(tick() == .sayGoodbye)
        outbox.connectionLost()
        #expect(tick() == .leave)
        outbox.abandon()
        #expect(outbox.counts.acknowledged == 2 && outbox.counts.dropped == 1)
    }
}

/// A connection to no broker (never started), so never idle: a wait for delivery ends when its time has passed on the
/// clock, not before.
struct MQTTConnectionWaitTests {
    @Test func aWaitForDeliveryEndsWhenItsTimeoutHasPassedOnTheClock() throws {
        let clock = ManualClock()
        let settings = MQTTConnection.Settings(endpoint: try MQTTEndpoint(parsing: "mqtt://127.0.0.1:1"), clientID: "facecam-test")
        let connection = try MQTTConnection(settings: settings, clock: clock, report: { _ in })
        connection.send(Array("event".utf8), on: "facecam/test/events")
        let delivered = Mutex<Bool?>(nil), done = DispatchSemaphore(value: 0)
        Thread {
            let result = connection.waitUntilDelivered(timeout: 5)
            delivered.withLock { $0 = result }
            done.signal()
        }.start()
        try #require(clock.waitForPending(1))
        clock.advance(by: 4.9)
        #expect(delivered.withLock { $0 } == nil)
        clock.advance(by: 0.1)
        try #require(done.wait(timeout: .now() + 60) == .success)
        #expect(delivered.withLock { $0 } == false)
    }
}
