#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Seconds on CLOCK_MONOTONIC, the clock V4L2 stamps buffers with.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Where a part whose rules depend on time reads it: the system's monotonic clock, or in tests one
/// they move by hand, so that a timeout is tested without waiting for it.
public protocol MonotonicClock: Sendable {
    /// Seconds from an arbitrary start; never less than an earlier reading.
    var now: Double { get }
}

/// CLOCK_MONOTONIC.
public struct SystemClock: MonotonicClock {
    public init() {}
    public var now: Double { monotonicSeconds() }
}

/// A clock the tests move by hand (the package's own; no command reads it).
package final class ManualClock: MonotonicClock {
    private let seconds = Mutex(0.0)

    package init() {}

    package var now: Double { seconds.withLock { $0 } }

    package func advance(by interval: Double) { seconds.withLock { $0 += interval } }

    /// Moves it to `time`, never back.
    package func set(to time: Double) { seconds.withLock { $0 = max($0, time) } }
}
