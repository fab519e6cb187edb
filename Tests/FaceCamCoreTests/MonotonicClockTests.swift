import Dispatch
import Synchronization
import Testing
@testable import FaceCamCore

/// `wait(for:until:)` on a clock moved by hand: each signal wakes one wait, and a deadline leaves nothing behind.
struct MonotonicClockTests {
    /// Runs `wait(for:until:)` on a thread of its own; the result once it returns.
    final class Waiter: Sendable {
        private let done = DispatchGroup()
        private let woken = Mutex<Bool?>(nil)

        init(_ clock: ManualClock, _ semaphore: DispatchSemaphore, until deadline: Double) {
            done.enter()
            DispatchQueue.global().async { [self] in
                let result = clock.wait(for: semaphore, until: deadline)
                woken.withLock { $0 = result }
                done.leave()
            }
        }

        /// True when a signal woke it, false when the deadline did; nil when it had not returned within a minute.
        var result: Bool? {
            _ = done.wait(timeout: .now() + 60)
            return woken.withLock { $0 }
        }
    }

    @Test func aSignalWakesTheWaitAndTheDeadlineThenSignalsNothing() {
        let clock = ManualClock(), semaphore = DispatchSemaphore(value: 0)
        let waiter = Waiter(clock, semaphore, until: 5)
        #expect(clock.waitForPending(1))
        semaphore.signal()
        #expect(waiter.result == true)
        clock.advance(by: 10)
        #expect(semaphore.wait(timeout: .now()) == .timedOut)
    }

    @Test func theDeadlineAloneEndsTheWaitAndLeavesNoSignal() {
        let clock = ManualClock(), semaphore = DispatchSemaphore(value: 0)
        let waiter = Waiter(clock, semaphore, until: 5)
        #expect(clock.waitForPending(1))
        clock.advance(by: 4.9)
        clock.advance(by: 0.1)
        #expect(waiter.result == false)
        #expect(semaphore.wait(timeout: .now()) == .timedOut)
    }

    /// A signal given as the deadline comes (here: before the wait, with the deadline already past, so that the timer
    /// signals too) is reported and taken; the timer's own signal is not left for the next wait.
    @Test func aSignalBesideTheDeadlineIsReportedAndNothingIsLeftOver() {
        let clock = ManualClock(), semaphore = DispatchSemaphore(value: 0)
        clock.advance(by: 5)
        semaphore.signal()
        #expect(clock.wait(for: semaphore, until: 5))
        #expect(semaphore.wait(timeout: .now()) == .timedOut)
        #expect(!clock.wait(for: semaphore, until: 5))
    }
}
