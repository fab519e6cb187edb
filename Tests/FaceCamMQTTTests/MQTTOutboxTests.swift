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

    /// Hands over everything due, as ids 1, 2, ... from `firstID`; returns the messages as "topic=payload".
    private func handOverAll(_ outbox: inout MQTTOutbox, firstID: Int32 = 1) -> [String] {
        var handed: [String] = []
        var id = firstID
        while let handover = outbox.next() {
            outbox.handedOver(handover, as: id)
            handed.append("\(handover.message.topic)=\(String(decoding: handover.message.payload, as: UTF8.self))")
            id += 1
        }
        return handed
    }

    @Test func nothingIsHandedOverBeforeTheBrokerAcceptsASession() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("online"), on: "a/availability")
        outbox.send(bytes("e1"), on: "a/event")
        #expect(outbox.next() == nil)
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
        #expect(outbox.next() == nil)
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
        #expect(outbox.next() == nil)
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
    @Test func aRefusedMessageDoesNotHoldUpTheRest() {
        var outbox = MQTTOutbox(queueCapacity: 10, inFlightLimit: 16)
        outbox.retain(bytes("on"), on: "state")
        outbox.send(bytes("e1"), on: "bad topic #")
        outbox.send(bytes("e2"), on: "events")
        outbox.sessionBegan()
        var handed: [String] = []
        while let handover = outbox.next() {
            if handover.message.topic.contains("#") || handover.message.retain {
                outbox.refused(handover)
            } else {
                outbox.handedOver(handover, as: 1)
                handed.append(handover.message.topic)
            }
        }
        #expect(handed == ["events"])
        #expect(outbox.counts.dropped == 1)
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
        #expect(outbox.next() == nil)
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
}
