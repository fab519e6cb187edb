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
    private var done = 0
    private var started = Date()
    private var lastDrawn = Date.distantPast

    init(every: Int) {
        self.every = every
    }

    /// A new file whose container announces `frames` frames (0: unknown).
    func start(file: String, frames: Int) {
        lock.withLock {
            if done > 0 { draw(force: true, newline: true) }
            self.file = file
            total = frames == 0 ? 0 : (frames + every - 1) / every
            done = 0
            started = Date()
        }
    }

    func advance(_ result: FrameResult) {
        lock.withLock {
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
