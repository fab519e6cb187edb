import Testing
@testable import FaceCamMQTT

/// When the MQTT connection tries its broker again and what it says, played as libmosquitto would
/// report the sessions, with the times written in the test: no broker and no waiting. (MQTTTests
/// runs the same connection against a real mosquitto that is stopped and started.)
struct MQTTLinkTests {
    private let endpoint = try! MQTTEndpoint(parsing: "mqtt://broker.lan:1883")

    @Test func waitsDoubleUpToHalfAMinuteWhileTheBrokerCannotBeReached() {
        var link = MQTTLink(endpoint: endpoint)
        var waits: [Double] = []
        var reports: [String] = []
        var now = 0.0
        for _ in 0..<10 {
            let ended = link.ended("Connection refused", at: now)
            waits.append(ended.retryAfter)
            reports += ended.reports
            now += ended.retryAfter
        }
        #expect(waits == [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30])
        #expect(reports == [
            "warning: MQTT: cannot reach the broker at mqtt://broker.lan:1883 (Connection refused); detection goes on and "
                + "facecam keeps trying",
        ])
        #expect(!link.everConnected)
    }

    /// An outage is said when it begins and when it ends, once each, however many attempts it took.
    @Test func aLostBrokerIsReportedOnceAndItsReturnOnce() {
        var link = MQTTLink(endpoint: endpoint)
        #expect(link.connected(at: 0) == nil)
        let lost = link.ended("Connection reset by peer", at: 60)
        #expect(lost.reports == [
            "warning: MQTT: lost the broker at mqtt://broker.lan:1883 (Connection reset by peer); detection goes on and "
                + "facecam reconnects",
        ])
        #expect(link.ended("Connection refused", at: 61).reports.isEmpty)
        #expect(link.ended("Connection refused", at: 62).reports.isEmpty)
        #expect(link.connected(at: 70) == "MQTT: connected to mqtt://broker.lan:1883")
        #expect(link.outage == nil)
        #expect(link.connected(at: 80) == nil)
    }

    /// A session of 10 s or more starts the waits afresh; one the broker drops at once does not, so such a broker is tried
    /// less and less often.
    @Test func onlyASteadySessionStartsTheWaitsAfresh() {
        var link = MQTTLink(endpoint: endpoint)
        var now = 0.0
        var waits: [Double] = []
        for _ in 0..<4 {
            _ = link.connected(at: now)
            now += 1  // dropped a second after it was accepted
            let ended = link.ended("Connection reset by peer", at: now)
            waits.append(ended.retryAfter)
            now += ended.retryAfter
        }
        #expect(waits == [0.5, 1, 2, 4])
        _ = link.connected(at: now)
        #expect(link.ended("Connection reset by peer", at: now + 9.9).retryAfter == 8)
        _ = link.connected(at: now + 20)
        #expect(link.ended("Connection reset by peer", at: now + 30).retryAfter == 0.5)
    }

    /// The broker's refusal names the session's end rather than the socket's, and a new refusal within an outage is said
    /// once more: waiting will not cure wrong credentials.
    @Test func aRefusalIsNamedAndANewOneSaidAgain() {
        var link = MQTTLink(endpoint: endpoint)
        let first = link.ended("Connection refused", at: 0)
        #expect(first.reports.count == 1)
        link.refused("not authorised")
        let refused = link.ended("The connection was lost", at: 1)
        #expect(refused.reports == ["warning: MQTT: mqtt://broker.lan:1883: the broker refused facecam: not authorised"])
        #expect(link.outage == "the broker refused facecam: not authorised")
        link.refused("not authorised")
        #expect(link.ended("The connection was lost", at: 2).reports.isEmpty)
        // The refusal is the answer to one attempt only.
        #expect(link.ended("Connection refused", at: 3).reports.isEmpty)
        #expect(link.outage == "Connection refused")
    }
}
