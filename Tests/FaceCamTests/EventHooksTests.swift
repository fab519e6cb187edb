@testable import FaceCam
@testable import FaceCamCore
import Foundation
import Synchronization
import Testing

/// --on-event's commands when a run is stopped: the queued ones never start, and one still running is killed after the
/// grace rather than its timeout. Real commands (/bin/sh), no broker, no clock read by the test.
struct EventHooksTests {
    static func event(_ id: Int) -> TrackEvent {
        TrackEvent(
            kind: .enter, id: id, source: "clip", frame: id, time: Double(id), firstFrame: id, firstTime: Double(id), lastFrame: id,
            lastTime: Double(id), preview: Rect(x: 0, y: 0, width: 10, height: 10))
    }

    @Test func aStopDropsTheQueuedAndEndsTheRunningAfterTheGrace() throws {
        let said = Mutex<[String]>([])
        let started = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-hook-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: started) }
        let hooks = EventHooks(command: "touch '\(started)'; exec sleep 100", concurrency: 1, timeout: 600) { line in
            said.withLock { $0.append(line) }
        }
        for id in 1...3 { hooks.run(Self.event(id), record: "{}") }
        // Stopped once the first command runs (the others wait for its slot).
        while !FileManager.default.fileExists(atPath: started) { usleep(10_000) }
        let summary = hooks.finish(stopped: true)
        // The first ran (killed after the grace, not its 600 s timeout, which the test would not outlive), the others
        // were dropped, whatever point the first had reached.
        #expect(summary == EventHooks.Summary(runs: 1, failed: 1, dropped: 2))
        #expect(said.withLock { $0 } == ["the command was still running 2 s after the run stopped, and was killed for id 1's enter at clip frame 1"])
    }

    /// At the end of the inputs (no stop) the queued ones still start, and each ends on its own.
    @Test func theInputsEndRunsTheQueued() throws {
        let hooks = EventHooks(command: "exit 0", concurrency: 1, timeout: 60) { _ in }
        for id in 1...3 { hooks.run(Self.event(id), record: "{}") }
        #expect(hooks.finish() == EventHooks.Summary(runs: 3, failed: 0, dropped: 0))
    }
}
