/// What a connection to a message broker (live --mqtt) did so far.
public struct BrokerCounts: Sendable, Equatable {
    /// Messages the broker acknowledged.
    public var acknowledged = 0
    /// Messages dropped: the queue was full, or they were still waiting when the run stopped.
    public var dropped = 0
    public var connected = false

    public init() {}
}
