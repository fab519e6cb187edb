/// When an MQTT connection tries its broker again, and what it tells the user about it, decided from
/// what happened and when. `MQTTConnection`'s thread feeds it the sessions' beginnings and ends with
/// the time from its clock, and does what it returns; it reads no clock and waits for nothing, so that
/// its rules are tested without a broker or real time.
///
/// The rules: the waits between attempts double from `backoff.first` to `backoff.last`; a session that
/// lasted `steadySession` starts them afresh when it ends, so a broker that accepts and then drops
/// facecam at once is tried less and less often. An outage is reported once when it begins and once
/// when it ends; a refusal by the broker (wrong credentials, which waiting will not cure) once more
/// when it is new in an outage.
struct MQTTLink {
    /// Waits between connection attempts: doubling from the first to the last.
    static let backoff = (first: 0.5, last: 30.0)
    static let steadySession = 10.0
    static let refused = "the broker refused facecam: "

    let endpoint: MQTTEndpoint
    private(set) var everConnected = false
    /// Why the broker cannot be used, while it cannot; nil when connected or never tried.
    private(set) var outage: String?
    private var delay = MQTTLink.backoff.first
    private var sessionStart: Double?
    /// The broker's answer to the last attempt, when it refused: the session's end names it, not the socket's.
    private var refusal: String?

    init(endpoint: MQTTEndpoint) {
        self.endpoint = endpoint
    }

    /// The broker accepted a session at `now`; a line to report when that ends an outage.
    mutating func connected(at now: Double) -> String? {
        everConnected = true
        sessionStart = now
        defer { outage = nil }
        return outage == nil ? nil : "MQTT: connected to \(endpoint)"
    }

    /// The broker answered the attempt with a refusal (`reason`, libmosquitto's words for its code).
    mutating func refused(_ reason: String) {
        refusal = Self.refused + reason
    }

    /// The attempt or the session ended at `now` for `reason` (unless the broker refused it): the lines to report, and how
    /// many seconds to wait before the next attempt.
    mutating func ended(_ reason: String, at now: Double) -> (reports: [String], retryAfter: Double) {
        let reason = refusal ?? reason
        refusal = nil
        var reports: [String] = []
        if outage == nil {
            reports.append(everConnected
                ? "warning: MQTT: lost the broker at \(endpoint) (\(reason)); detection goes on and facecam reconnects"
                : "warning: MQTT: cannot reach the broker at \(endpoint) (\(reason)); detection goes on and facecam keeps trying")
        } else if reason != outage, reason.hasPrefix(Self.refused) {
            reports.append("warning: MQTT: \(endpoint): \(reason)")
        }
        outage = reason
        if let sessionStart, now - sessionStart >= Self.steadySession { delay = Self.backoff.first }
        sessionStart = nil
        defer { delay = min(delay * 2, Self.backoff.last) }
        return (reports, delay)
    }
}
