import Testing
@testable import FaceCamMQTT

/// The MQTT connection's rules for what it owes the broker, driven without a broker: each test plays
/// a session as libmosquitto would report it and checks what is handed over, in which order, and what
/// is counted. (MQTTTests runs the same connection against a real mosquitto.)
struct MQTTOutboxTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Sends each of `payloads` as an event on the topic "events".
    private func sendEvents(_ payloads: String..., to outbox: inout MQTTOutbox) {
        for payload in payloads { outbox.send(bytes(payload), on: "events") }
    }

    /// What is due now (a function, since #expect and #require cannot call a mutating method).
    private func take(_ outbox: inout MQTTOutbox) -> MQTTOutbox.Batch? { outbox.takeBatch() }

    /// "topic=payload" of each of `batch`'s messages.
    private func described(_ batch: MQTTOutbox.Batch?) -> [String] {
        (batch?.handovers ?? []).map { "\($0.message.topic)=\(String(decoding: $0.message.payload, as: UTF8.self))" }
    }

    /// Hands over everything due, batch after batch, as ids 1, 2, ... from `firstID`; returns the messages as "topic=payload".
    private func handOverAll(_ outbox: inout MQTTOutbox, firstID: Int32 = 1) -> [String] {
        var handed: [String] = []
        var id = firstID
        while let batch = take(&outbox) {
            outbox.record(batch, batch.handovers.indices.map { .taken(id: id + Int32($0)) })
            id += Int32(batch.handovers.count)
            handed += described(batch)
        }
        return handed
    }

    @Test func nothingIsHandedOverBeforeTheBrokerAcceptsASession() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("online"), on: "a/availability")
        outbox.send(bytes("e1"), on: "a/event")
        #expect(take(&outbox) == nil)
        #expect(outbox.waitingEvents == 1)
        outbox.sessionBegan()
        #expect(!outbox.isIdle)
        #expect(handOverAll(&outbox) == ["a/availability=online", "a/event=e1"])
        #expect(!outbox.isIdle)
        outbox.acknowledged(1)
        outbox.acknowledged(2)
        #expect(outbox.isIdle)
    }

    /// Retained topics go first, each with its newest payload: on a new session in the order they were
    /// first set, within a session in the order of their latest changes. Events follow in the order sent.
    @Test func retainedTopicsGoFirstWithTheirNewestPayloads() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 2)
        outbox.send(bytes("e1"), on: "events")
        outbox.retain(bytes("1"), on: "count")
        outbox.retain(bytes("on"), on: "state")
        outbox.retain(bytes("2"), on: "count")
        outbox.send(bytes("e2"), on: "events")
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["count=2", "state=on"])
        outbox.retain(bytes("3"), on: "count")
        outbox.retain(bytes("off"), on: "state")
        outbox.retain(bytes("4"), on: "count")
        outbox.acknowledged(1)
        outbox.acknowledged(2)
        #expect(handOverAll(&outbox, firstID: 3) == ["state=off", "count=4"])
        outbox.acknowledged(3)
        outbox.acknowledged(4)
        #expect(handOverAll(&outbox, firstID: 5) == ["events=e1", "events=e2"])
    }

    @Test func atMostTheInFlightLimitWaitForAcknowledgement() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 2)
        sendEvents("e1", "e2", "e3", "e4", "e5", to: &outbox)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["events=e1", "events=e2"])
        outbox.acknowledged(1)
        #expect(handOverAll(&outbox, firstID: 3) == ["events=e3"])
        // An id the outbox never handed over (or one acknowledged twice) changes nothing.
        outbox.acknowledged(1)
        outbox.acknowledged(99)
        #expect(take(&outbox) == nil)
        #expect(outbox.counts.acknowledged == 1)
    }

    @Test func eventsBeyondTheQueuesCapacityAreDroppedAndCounted() {
        var outbox = MQTTOutbox(queueCapacity: 3, inFlightLimit: 16)
        sendEvents("e1", "e2", "e3", "e4", "e5", to: &outbox)
        // Retained payloads are not events: they never fill the queue.
        outbox.retain(bytes("on"), on: "state")
        #expect(outbox.counts.dropped == 2)
        #expect(outbox.waitingEvents == 3)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["state=on", "events=e1", "events=e2", "events=e3"])
    }

    /// A lost session: its unacknowledged events go back to the front of the queue, before those sent
    /// since, as many as fit; every retained topic is republished on the next session, newest payload.
    @Test func aNewSessionResendsWhatTheLastOneLeftUnacknowledged() {
        var outbox = MQTTOutbox(queueCapacity: 3, inFlightLimit: 16)
        outbox.retain(bytes("on"), on: "state")
        sendEvents("e1", "e2", to: &outbox)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["state=on", "events=e1", "events=e2"])
        outbox.acknowledged(1)
        outbox.acknowledged(2)
        outbox.connectionLost()
        #expect(take(&outbox) == nil)
        sendEvents("e3", "e4", to: &outbox)
        outbox.retain(bytes("off"), on: "state")
        outbox.sessionEnded()
        // e2 was in flight: with e3 and e4 queued, one place is left, and e2 takes it.
        #expect(outbox.counts.dropped == 0)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox, firstID: 10) == ["state=off", "events=e2", "events=e3", "events=e4"])
        sendEvents("e5", "e6", "e7", to: &outbox)
        outbox.sessionEnded()
        // e2, e3, e4 were in flight and e5..e7 fill the queue: those three are dropped.
        #expect(outbox.counts.dropped == 3)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox, firstID: 20) == ["state=off", "events=e5", "events=e6", "events=e7"])
    }

    /// A refused message is dropped (an event is counted) and what is behind it still goes.
    @Test func aRefusedMessageDoesNotHoldUpTheRest() throws {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("on"), on: "state")
        outbox.send(bytes("e1"), on: "bad topic #")
        outbox.send(bytes("e2"), on: "events")
        outbox.sessionBegan()
        let batch = try #require(take(&outbox))
        #expect(described(batch) == ["state=on", "bad topic #=e1", "events=e2"])
        outbox.record(batch, [.refused, .refused, .taken(id: 1)])
        // e2 waits for its acknowledgement; the refused event is counted, the refused retained payload is not.
        #expect(outbox.counts.dropped == 1 && outbox.waitingEvents == 1)
    }

    /// A stop: the farewell goes after everything else, and delivery means its acknowledgement.
    @Test func theFarewellGoesLastAndItsAcknowledgementIsDelivery() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("online"), on: "availability")
        outbox.send(bytes("e1"), on: "events")
        outbox.sessionBegan()
        outbox.farewell((payload: bytes("offline"), topic: "availability"))
        #expect(handOverAll(&outbox) == ["availability=online", "events=e1", "availability=offline"])
        #expect(!outbox.delivered)
        outbox.acknowledged(3)
        #expect(outbox.delivered)
        #expect(take(&outbox) == nil)
    }

    /// Without a farewell, delivery is every message acknowledged; abandoning counts the events still waiting.
    @Test func abandoningCountsTheEventsNotAcknowledged() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 2)
        outbox.retain(bytes("on"), on: "state")
        sendEvents("e1", "e2", "e3", to: &outbox)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["state=on", "events=e1"])
        outbox.acknowledged(1)
        #expect(!outbox.delivered)
        // e1 in flight, e2 and e3 queued: three events lost; the retained state is not an event.
        outbox.abandon()
        #expect(outbox.counts.dropped == 3)
        #expect(outbox.waitingEvents == 0)
        #expect(outbox.counts.acknowledged == 1)
        outbox.sessionEnded()
        #expect(!outbox.counts.connected)
    }

    /// libmosquitto may run its acknowledgement callback before `cmqtt_publish` returned the id: the acknowledgement of a
    /// message whose batch is not recorded yet counts once the id is, and one of an id no batch names changes nothing.
    @Test func anAcknowledgementThatComesBeforeItsIdIsRecordedCounts() throws {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        sendEvents("e1", "e2", "e3", to: &outbox)
        outbox.sessionBegan()
        outbox.farewell((payload: bytes("offline"), topic: "availability"))
        let batch = try #require(take(&outbox))
        #expect(described(batch) == ["events=e1", "events=e2", "events=e3", "availability=offline"])
        outbox.acknowledged(2)
        outbox.acknowledged(4)
        outbox.acknowledged(77)
        #expect(outbox.counts.acknowledged == 0)
        outbox.record(batch, [.taken(id: 1), .taken(id: 2), .taken(id: 3), .taken(id: 4)])
        #expect(outbox.counts.acknowledged == 2)
        // The farewell's acknowledgement came first: delivery is still its acknowledgement.
        #expect(outbox.delivered)
        #expect(outbox.waitingEvents == 2)
        // Early acknowledgements are kept for their batch only: 77 now names nothing, nor does 2 again.
        outbox.acknowledged(2)
        outbox.acknowledged(77)
        #expect(outbox.counts.acknowledged == 2)
        outbox.acknowledged(1)
        outbox.acknowledged(3)
        #expect(outbox.counts.acknowledged == 4)
        #expect(outbox.isIdle)
    }

    /// While a batch is being handed over, no other is taken: what is sent meanwhile goes in the next batch, after it, so
    /// that two threads handing over at once cannot reorder the messages.
    @Test func oneBatchAtATimeKeepsTheOrder() throws {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 3)
        outbox.sessionBegan()
        sendEvents("e1", "e2", to: &outbox)
        let first = try #require(take(&outbox))
        sendEvents("e3", "e4", to: &outbox)
        #expect(take(&outbox) == nil)
        outbox.record(first, [.taken(id: 1), .taken(id: 2)])
        // Two in flight of three: one more now, the next when an acknowledgement makes room.
        let second = try #require(take(&outbox))
        #expect(described(first) + described(second) == ["events=e1", "events=e2", "events=e3"])
        outbox.record(second, [.taken(id: 3)])
        #expect(take(&outbox) == nil)
        outbox.acknowledged(1)
        #expect(described(take(&outbox)) == ["events=e4"])
    }

    /// The connection went while a batch was handed over: what the client did not take, and a batch the session's end
    /// overtook, go again on the next session, in their order; the stale batch's record changes nothing.
    @Test func aBatchTheConnectionLeftIsSentOnTheNextSession() throws {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("on"), on: "state")
        sendEvents("e1", "e2", "e3", to: &outbox)
        outbox.sessionBegan()
        let first = try #require(take(&outbox))
        outbox.record(first, [.taken(id: 1), .taken(id: 2), .notTaken, .notTaken])
        #expect(!outbox.delivered && outbox.waitingEvents == 3)
        outbox.sessionEnded()
        outbox.sessionBegan()
        let second = try #require(take(&outbox))
        outbox.sessionEnded()
        outbox.record(second, [.taken(id: 1), .taken(id: 2), .taken(id: 3), .taken(id: 4)])
        #expect(outbox.waitingEvents == 3 && outbox.counts.dropped == 0)
        outbox.sessionBegan()
        #expect(handOverAll(&outbox) == ["state=on", "events=e1", "events=e2", "events=e3"])
    }
}
