import FaceCam
import Foundation

/// Frames done, frames per second and time left, redrawn on one line of
/// standard error when it is a terminal; silent otherwise.
final class ProgressBar: @unchecked Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1
    private let every: Int
    private let lock = NSLock()
    private var file = ""
    private var total = 0
    /// Frames to come and when reading began, per file.
    private var expected: [String: (frames: Int, since: Date)] = [:]
    private var done = 0
    private var started = Date()
    private var lastDrawn = Date.distantPast

    init(every: Int) {
        self.every = every
    }

    /// Registers a file whose container announces `frames` frames (0: unknown).
    func expect(file: String, frames: Int) {
        lock.withLock { expected[file] = (frames == 0 ? 0 : (frames + every - 1) / every, Date()) }
    }

    /// Counts a frame of `source` done; frames arrive in order, so a new source means the last one is done.
    func advance(_ source: String) {
        lock.withLock {
            if source != file {
                if done > 0 { draw(force: true, newline: true) }
                file = source
                (total, started) = expected[file] ?? (0, Date())
                done = 0
            }
            done += 1
            draw(force: false, newline: false)
        }
    }

    func end() {
        lock.withLock { if done > 0 { draw(force: true, newline: true) } }
    }

    private func draw(force: Bool, newline: Bool) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
        lastDrawn = now
        let elapsed = max(now.timeIntervalSince(started), 1e-6)
        let rate = Double(done) / elapsed
        var line = "\r\(file): \(done)"
        if total > 0 {
            let width = 30
            let filled = min(width, width * done / total)
            line += "/\(total) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
        }
        line += String(format: " %.1f frames/s", rate)
        if total > done, rate > 0 {
            let left = Int(Double(total - done) / rate)
            line += String(format: " %d:%02d left", left / 60, left % 60)
        }
        line += "\u{1B}[K" + (newline ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }
}
