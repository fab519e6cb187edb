import Foundation
import Synchronization

/// Counts and latencies of a live run.
public struct LiveSummary: Sendable, CustomStringConvertible {
    public var counts: LiveCounts
    public var captured: Int { counts.captured }
    public var processed: Int { counts.processed }
    public var dropped: Int { counts.dropped }
    public var missed: Int { counts.missed }
    /// Buffers the driver flagged as damaged or empty.
    public var skipped: Int
    /// Capture to result written, in seconds.
    public var meanLatency: Double
    public var percentile95Latency: Double

    public var description: String {
        "captured \(captured) frames, processed \(processed), dropped \(dropped) while the detector was busy"
            + (counts.skippedWhileOff > 0 ? "; \(counts.skippedWhileOff) let go while detection was switched off" : "")
            + (missed > 0 ? "; \(missed) more never left the driver (sequence gaps)" : "")
            + (skipped > 0 ? "; skipped \(skipped) damaged buffers" : "")
            + String(format: "; latency from capture to result: mean %.0f ms, 95th percentile %.0f ms",
                     meanLatency * 1000, percentile95Latency * 1000)
    }
}

/// What live counts of its frames, which go through the pipeline newest first (`DetectionPipeline.Admission.newestFrame`):
/// the frames offered and the capture's counters they carried (a gap is a frame that never left the driver), those let
/// go while detection was switched off, and each processed frame's time from capture to result. Any thread may ask.
public final class LiveTally: Sendable {
    private let state = Mutex(State())

    private struct State {
        var offered = 0
        /// The capture's frame counters seen, lowest to highest.
        var sequences: ClosedRange<Int>?
        var processed = 0
        var latencies: [Double] = []
        var skippedWhileOff = 0
    }

    public init() {}

    /// Counts a frame captured; false when `detection` is switched off, and the frame is let go undetected.
    public func offer(_ job: FrameJob, detection: DetectionSwitch? = nil) -> Bool {
        let sequence = job.capture?.sequence ?? job.index
        let detecting = detection?.isOn ?? true
        state.withLock { state in
            state.offered += 1
            state.sequences = state.sequences.map { min($0.lowerBound, sequence)...max($0.upperBound, sequence) } ?? sequence...sequence
            if !detecting { state.skippedWhileOff += 1 }
        }
        return detecting
    }

    /// Counts a frame the pipeline delivered, once the sink has it: its latency is measured up to `now`.
    public func delivered(_ completion: Completion, now: Double = monotonicSeconds()) {
        state.withLock { state in
            state.processed += 1
            if case .frame(let frame) = completion, let capturedAt = frame.capturedAt { state.latencies.append(now - capturedAt) }
        }
    }

    /// The counts so far, with the frames the pipeline `dropped`.
    public func counts(dropped: Int) -> LiveCounts {
        state.withLock { state in
            LiveCounts(
                captured: state.offered, processed: state.processed, dropped: dropped,
                missed: state.sequences.map { $0.count - state.offered } ?? 0, skippedWhileOff: state.skippedWhileOff)
        }
    }

    /// What happened, with the frames the pipeline `dropped` and the buffers the capture `skipped`.
    public func summary(dropped: Int, skipped: Int) -> LiveSummary {
        let counts = counts(dropped: dropped)
        let sorted = state.withLock { $0.latencies }.sorted()
        let p95 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
        return LiveSummary(
            counts: counts, skipped: skipped,
            meanLatency: sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count), percentile95Latency: p95)
    }
}
