#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization

/// Where a part whose rules depend on time reads it and waits on it: the system's monotonic clock, or in
/// tests one they move by hand, so that a timeout is tested without waiting for it.
public protocol MonotonicClock: Sendable {
    /// Seconds from an arbitrary start; never less than an earlier reading.
    var now: Double { get }

    /// Runs `action` once `now` reaches `deadline` (at once, perhaps on the calling thread, when it has), unless it is
    /// cancelled first.
    @discardableResult
    func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction
}

extension MonotonicClock {
    /// Blocks the calling thread until `now` reaches `deadline`.
    public func sleep(until deadline: Double) {
        _ = wait(for: DispatchSemaphore(value: 0), until: deadline)
    }

    /// Blocks the calling thread until `semaphore` is signalled or `now` reaches `deadline`; false when the deadline came
    /// and no signal. Each signal wakes one wait, as without a deadline: none is lost, and none is left over.
    public func wait(for semaphore: DispatchSemaphore, until deadline: Double) -> Bool {
        // Who woke the waiter is settled under one lock: the timer signals only while the waiter sleeps, and a waiter
        // it woke takes the signal that may have come beside it.
        let timer = Mutex(DeadlineTimer.armed)
        let scheduled = schedule(at: deadline) {
            timer.withLock { timer in
                guard timer == .armed else { return }
                timer = .signalled
                semaphore.signal()
            }
        }
        semaphore.wait()
        scheduled.cancel()
        let timedOut = timer.withLock { timer in
            defer { timer = .disarmed }
            return timer == .signalled
        }
        return !timedOut || semaphore.wait(timeout: .now()) == .success
    }
}

private enum DeadlineTimer { case armed, signalled, disarmed }

/// An action a clock will run, which `cancel` keeps from running if it has not begun.
public final class ScheduledAction: Sendable {
    private let action: Mutex<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
    }

    public func cancel() {
        action.withLock { $0 = nil }
    }

    /// Runs the action unless it was cancelled or has run.
    func run() {
        action.withLock { action in
            defer { action = nil }
            return action
        }?()
    }
}

/// CLOCK_MONOTONIC, the clock V4L2 stamps buffers with.
public struct SystemClock: MonotonicClock {
    public init() {}

    public var now: Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @discardableResult
    public func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let scheduled = ScheduledAction(action)
        // Dispatch's own clock is CLOCK_MONOTONIC too, so only the interval is handed over.
        let nanoseconds = Int(min(max(0, deadline - now), 1e9) * 1e9)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { scheduled.run() }
        return scheduled
    }
}

/// A clock the tests move by hand (the package's own; no command reads it): what is scheduled runs, in the order of
/// its deadlines, on the thread that moves the clock past them.
package final class ManualClock: MonotonicClock {
    private struct State {
        var now = 0.0
        var scheduled: [(deadline: Double, action: ScheduledAction)] = []
    }
    private let state = Mutex(State())

    package init() {}

    package var now: Double { state.withLock { $0.now } }

    @discardableResult
    package func schedule(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        let scheduled = ScheduledAction(action)
        let due = state.withLock { state in
            if deadline <= state.now { return true }
            state.scheduled.append((deadline, scheduled))
            return false
        }
        if due { scheduled.run() }
        return scheduled
    }

    /// Actions scheduled and not yet due (cancelled ones included).
    package var pending: Int { state.withLock { $0.scheduled.count } }

    /// Waits, a minute at most in real time, until `count` actions are scheduled: a test moves the clock once the part
    /// it tests waits on it. False when they never were.
    package func waitForPending(_ count: Int) -> Bool {
        eventually { pending >= count }
    }

    package func advance(by interval: Double) { set(to: now + interval) }

    /// Moves it to `time`, never back, and runs what came due.
    package func set(to time: Double) {
        let due = state.withLock { state in
            state.now = max(state.now, time)
            let now = state.now
            let due = state.scheduled.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.scheduled.removeAll { $0.deadline <= now }
            return due.map(\.action)
        }
        for action in due { action.run() }
    }
}

/// Whether `condition` holds within a minute of real time, looked at every millisecond: the tests' bound on a wait for
/// another thread or process, so that a failure ends the test rather than hanging it; no result depends on how long the
/// wait took.
package func eventually(_ condition: () -> Bool) -> Bool {
    let clock = SystemClock()
    let giveUp = clock.now + 60
    while !condition() {
        guard clock.now < giveUp else { return false }
        usleep(1_000)
    }
    return true
}
