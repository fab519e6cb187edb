import ArgumentParser
import FaceCam
import Foundation
import Synchronization

/// Frames done, frames per second and time left on standard error: redrawn on one line of a
/// terminal, or written as plain lines every `lineInterval` seconds.
final class ProgressBar: Sendable {
    private let every: Int
    private let lines: Bool
    private let state = Mutex(State())
    /// What rates and redraws are timed by: monotonic, so that a step of the wall clock skews neither.
    private let clock: any MonotonicClock
    static let lineInterval = 10.0

    private struct State {
        var file = ""
        var total = 0
        /// Frames to come and when reading began, per file.
        var expected: [String: (frames: Int, since: Double)] = [:]
        var done = 0
        var started = 0.0
        var lastDrawn = -Double.infinity
    }

    init(every: Int, lines: Bool, clock: any MonotonicClock = SystemClock()) {
        self.every = every
        self.lines = lines
        self.clock = clock
    }

    /// Registers a file whose container announces `frames` frames (0: unknown).
    func expect(file: String, frames: Int) {
        let now = clock.now
        state.withLock { $0.expected[file] = (frames == 0 ? 0 : (frames + every - 1) / every, now) }
    }

    /// Counts a frame of `source` done; frames arrive in order, so a new source means the last one is done.
    func advance(_ source: String) {
        let now = clock.now
        state.withLock { state in
            if source != state.file {
                if state.done > 0 { draw(&state, now: now, force: true, newline: true) }
                state.file = source
                (state.total, state.started) = state.expected[source] ?? (0, now)
                state.done = 0
                state.lastDrawn = now
            }
            state.done += 1
            draw(&state, now: now, force: false, newline: false)
        }
    }

    func end() {
        let now = clock.now
        state.withLock { state in if state.done > 0 { draw(&state, now: now, force: true, newline: true) } }
    }

    private func draw(_ state: inout State, now: Double, force: Bool, newline: Bool) {
        guard force || now - state.lastDrawn >= (lines ? Self.lineInterval : 0.1) else { return }
        state.lastDrawn = now
        let (file, total, done) = (state.file, state.total, state.done)
        let elapsed = max(now - state.started, 1e-6)
        let rate = Double(done) / elapsed
        // "m:ss left", when the container said how many frames are coming.
        let left = total > done && rate > 0 ? Int(Double(total - done) / rate) : nil
        let timeLeft = left.map { String(format: "%d:%02d left", $0 / 60, $0 % 60) }
        if lines {
            // A still image is one frame: no progress to tell.
            guard done > 1 || total > 1 else { return }
            report("\(file): \(done)\(total > 0 ? " of \(total)" : "") frames, " + String(format: "%.1f frames/s", rate)
                + (timeLeft.map { ", " + $0 } ?? "") + (newline ? ", done" : ""))
            return
        }
        var line = "\r\(file): \(done)"
        if total > 0 {
            let width = 30
            let filled = min(width, width * done / total)
            line += "/\(total) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
        }
        line += String(format: " %.1f frames/s", rate) + (timeLeft.map { " " + $0 } ?? "")
        line += "\u{1B}[K" + (newline ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }
}

extension ProgressBar {
    /// The progress display `options` ask for, for frames read every `every`, or nil for none.
    static func made(_ options: ProgressOptions, every: Int) -> ProgressBar? {
        switch options.quiet ? .none : options.progress {
        case .none: nil
        case .auto: isatty(STDERR_FILENO) == 1 ? ProgressBar(every: every, lines: false) : nil
        case .lines: ProgressBar(every: every, lines: true)
        }
    }
}
