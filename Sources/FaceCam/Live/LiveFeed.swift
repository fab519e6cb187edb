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

/// live's frames through the one driver, newest first (`DetectionPipeline.Admission.newestFrame`), to the sink, and what
/// live counts of them: the frames offered and the capture's counters they carried (a gap is a frame that never left the
/// driver), those dropped while the detector was busy, those let go while detection was switched off (asked on the
/// detector's queue, just before each frame), and each processed frame's time from capture to result. One thread
/// submits; any thread may ask for the counts.
public final class LiveFeed: Sendable {
    private let pipeline: DetectionPipeline
    private let sink: ResultSink
    private let tally = Tally()

    /// What the submitting thread and the detector's queue share.
    private final class Tally: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var offered = 0
        /// The capture's frame counters seen, lowest to highest.
        var sequences: ClosedRange<Int>?
        var processed = 0
        var latencies: [Double] = []
        var skippedWhileOff = 0
    }

    /// `masks` are painted on the faces cut out, after detection (the consumers paint their own pictures); a latency
    /// ends when `clock` says the sink has had the frame.
    public init(
        detector: any FrameFaceDetector, sink: ResultSink, detection: DetectionSwitch? = nil, masks: PrivacyMasks = PrivacyMasks(polygons: []),
        clock: any MonotonicClock = SystemClock()
    ) {
        self.sink = sink
        let tally = tally
        let runs: @Sendable (FrameJob) -> Bool = { _ in
            guard let detection, !detection.isOn else { return true }
            tally.state.withLock { $0.skippedWhileOff += 1 }
            return false
        }
        pipeline = DetectionPipeline(detectors: [detector], masks: masks, admission: .newestFrame(runs: runs)) { completion in
            sink.consume(completion)
            let now = clock.now
            tally.state.withLock { state in
                state.processed += 1
                if case .frame(let frame) = completion, let capturedAt = frame.capturedAt { state.latencies.append(now - capturedAt) }
            }
        }
    }

    /// Takes a live frame's job (`FrameJob.capture` says when it was taken), which replaces the one waiting, if any.
    public func submit(_ job: FrameJob) {
        let sequence = job.capture?.sequence ?? job.index
        tally.state.withLock { state in
            state.offered += 1
            state.sequences = state.sequences.map { min($0.lowerBound, sequence)...max($0.upperBound, sequence) } ?? sequence...sequence
        }
        pipeline.submit(job)
    }

    /// The counts so far.
    public func counts() -> LiveCounts {
        let dropped = pipeline.dropped
        return tally.state.withLock { state in
            LiveCounts(
                captured: state.offered, processed: state.processed, dropped: dropped,
                missed: state.sequences.map { $0.count - state.offered } ?? 0, skippedWhileOff: state.skippedWhileOff)
        }
    }

    /// Waits for the frame being detected and the one waiting, then for what the sink's consumers queued, and tells what
    /// happened, with the buffers the capture `skipped`.
    public func finish(skipped: Int) -> LiveSummary {
        pipeline.finish()
        sink.drain()
        let counts = counts()
        let sorted = tally.state.withLock { $0.latencies }.sorted()
        let p95 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
        return LiveSummary(
            counts: counts, skipped: skipped,
            meanLatency: sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count), percentile95Latency: p95)
    }
}
