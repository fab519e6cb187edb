/// How a stop ends an MQTT connection, decided from what the outbox says and when. `MQTTConnection`'s thread
/// ticks it with the time from its clock, whether a session is on and whether everything was delivered, and does what it
/// returns; it reads no clock and waits for nothing, so that its rules are tested without a broker or real time.
///
/// The rules: the broker has `grace` seconds from the stop to acknowledge everything (the farewell, when there is one).
/// Once it has, facecam says goodbye (a clean disconnect, which voids the last will) and runs the network up to
/// `goodbyeTime` more for it to go out. When the grace runs out first, or no session is on, facecam leaves without a
/// goodbye, so that the broker publishes the last will. Whoever asked for the stop waits for the connection's thread up to
/// `threadTime` beyond the grace: a thread stuck longer (in a name lookup) is left to the end of the process.
struct MQTTStop {
    enum Action: Equatable {
        /// Run the network a little longer and tick again: acknowledgements, or the goodbye, are on their way.
        case runNetwork
        /// Everything was delivered: disconnect cleanly.
        case sayGoodbye
        /// End the session as it is.
        case leave
    }

    static let goodbyeTime = 0.5
    static let threadTime = 3.0

    /// When the broker's acknowledgements are no longer waited for.
    let graceEnd: Double
    /// When whoever asked for the stop no longer waits for the connection's thread.
    var threadDeadline: Double { graceEnd + Self.threadTime }
    /// When the goodbye, once said, is no longer waited for.
    private var goodbyeEnd: Double?

    /// A stop asked for at `now`, giving the broker `grace` seconds.
    init(at now: Double, grace: Double) {
        graceEnd = now + grace
    }

    /// What to do at `now`, with a session on (`connected`) or not, and everything `delivered` or not.
    mutating func tick(now: Double, connected: Bool, delivered: Bool) -> Action {
        guard connected else { return .leave }
        if let goodbyeEnd { return now < goodbyeEnd ? .runNetwork : .leave }
        if delivered {
            goodbyeEnd = now + Self.goodbyeTime
            return .sayGoodbye
        }
        return now < graceEnd ? .runNetwork : .leave
    }
}
