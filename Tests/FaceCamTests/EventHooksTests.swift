@testable import FaceCam
@testable import FaceCamCore
import Foundation
import Synchronization
import Testing

/// --on-event's commands when a run is stopped: the queued ones never start, and one still running is killed after the
/// grace rather than its timeout. Real commands (/bin/sh), and a clock the tests move.
struct EventHooksTests {
    static func event(_ id: Int) -> TrackEvent {
        TrackEvent(
            kind: .enter, id: id, source: "clip", frame: id, time: Double(id), firstFrame: id, firstTime: Double(id), lastFrame: id,
            lastTime: Double(id), preview: Rect(x: 0, y: 0, width: 10, height: 10))
    }

    /// What hooks said, a line each.
    final class Said: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Hooks whose command makes the file `marking` once it runs, then sleeps 100 s, with a 600 s timeout on `clock`.
    static func sleepingHooks(marking started: String, clock: ManualClock, said: Said) -> EventHooks {
        EventHooks(command: "touch '\(started)'; exec sleep 100", concurrency: 1, timeout: 600, clock: clock) { said.append($0) }
    }

    @Test func aStopDropsTheQueuedAndEndsTheRunningAfterTheGrace() throws {
        let clock = ManualClock(), said = Said()
        let started = temporaryPath("facecam-hook")
        defer { try? FileManager.default.removeItem(atPath: started) }
        let hooks = Self.sleepingHooks(marking: started, clock: clock, said: said)
        for id in 1...3 { hooks.run(Self.event(id), record: "{}") }
        // Stopped once the first command runs (the others wait for its slot).
        try #require(eventually { FileManager.default.fileExists(atPath: started) })
        let summary = Mutex<EventHooks.Summary?>(nil)
        Thread {
            let finished = hooks.finish(stopped: true)
            summary.withLock { $0 = finished }
        }.start()
        // Its timeout's kill and the stop's: until the grace has passed on the clock, the command runs on.
        try #require(clock.waitForPending(2))
        #expect(summary.withLock { $0 } == nil)
        clock.advance(by: EventHooks.stopGrace)
        try #require(eventually { summary.withLock { $0 } != nil })
        // The first ran (killed after the grace, not its 600 s timeout), the others were dropped, whatever point the first
        // had reached.
        #expect(summary.withLock { $0 } == EventHooks.Summary(runs: 1, failed: 1, dropped: 2))
        #expect(said.all == ["the command was still running 2 s after the run stopped, and was killed for id 1's enter at clip frame 1"])
    }

    /// A command past its timeout is killed when the clock passes it, not after the timeout in real time: the clock is
    /// moved by hand once the command runs.
    @Test func aCommandPastItsTimeoutIsKilled() throws {
        let clock = ManualClock(), said = Said()
        let started = temporaryPath("facecam-hook")
        defer { try? FileManager.default.removeItem(atPath: started) }
        let hooks = Self.sleepingHooks(marking: started, clock: clock, said: said)
        hooks.run(Self.event(1), record: "{}")
        try #require(eventually { FileManager.default.fileExists(atPath: started) })
        clock.advance(by: 600)
        #expect(hooks.finish() == EventHooks.Summary(runs: 1, failed: 1, dropped: 0))
        #expect(said.all == ["the command ran longer than 600 s and was killed for id 1's enter at clip frame 1"])
    }

    /// When the inputs end, queued commands may start for one timeout more; those whose turn comes later are dropped. With
    /// one slot and commands that never end: the first is killed at its timeout, the second starts within the inputs'
    /// timeout and is killed at its own, and the third's turn comes after the inputs' and it is dropped.
    @Test func queuedCommandsStartForOneTimeoutAfterTheInputsEnd() throws {
        let clock = ManualClock()
        let folder = temporaryPath("facecam-hooks")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hooks = EventHooks(
            command: "touch \"\(folder)/$FACECAM_ID\"; exec sleep 100", concurrency: 1, timeout: 10, clock: clock) { _ in }
        for id in 1...3 { hooks.run(Self.event(id), record: "{}") }
        func started() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0 }
        try #require(eventually { started() == 1 })  // at 0: it is killed at 10
        clock.set(to: 5)
        let summary = Mutex<EventHooks.Summary?>(nil)
        Thread {
            let finished = hooks.finish()
            summary.withLock { $0 = finished }
        }.start()
        try #require(eventually { hooks.closingTime == 15 })  // the inputs ended at 5: queued commands may start until 15
        clock.set(to: 10)
        try #require(eventually { started() == 2 })  // at 10: it is killed at 20
        clock.set(to: 20)
        try #require(eventually { summary.withLock { $0 } != nil })
        #expect(summary.withLock { $0 } == EventHooks.Summary(runs: 2, failed: 2, dropped: 1))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == ["1", "2"])
    }

    /// Queued commands start in the order of their events, so that an id's enter runs before its leave.
    @Test func queuedCommandsStartInTheOrderOfTheirEvents() throws {
        let log = temporaryPath("facecam-hook-order")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let hooks = EventHooks(command: "echo $FACECAM_ID >> '\(log)'", concurrency: 1, timeout: 60) { _ in }
        for id in 1...20 { hooks.run(Self.event(id), record: "{}") }
        #expect(hooks.finish() == EventHooks.Summary(runs: 20, failed: 0, dropped: 0))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == (1...20).map { "\($0)\n" }.joined())
    }

    /// At the end of the inputs (no stop) the queued ones still start, and each ends on its own.
    @Test func theInputsEndRunsTheQueued() throws {
        let hooks = EventHooks(command: "exit 0", concurrency: 1, timeout: 60) { _ in }
        for id in 1...3 { hooks.run(Self.event(id), record: "{}") }
        #expect(hooks.finish() == EventHooks.Summary(runs: 3, failed: 0, dropped: 0))
    }
}

/// A path in the temporary folder no other test uses.
func temporaryPath(_ prefix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
}
