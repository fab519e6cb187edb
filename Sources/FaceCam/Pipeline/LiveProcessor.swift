#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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

/// Detects faces in live frames on one serial queue, newest frame first:
/// while the detector is busy a newer frame replaces the waiting one.
/// Each frame goes through the frame stage, as a file's do, to the sink
/// as soon as it is done; what is shown of it (`LiveOutputs`) is the sink's
/// consumers', on queues of their own that never slow detection.
public final class LiveProcessor: Sendable {
    private let sink: ResultSink
    private let frames: LatestFrameQueue<FrameJob>
    private let tally = Tally()

    /// What the live queue and the callers' threads share.
    private final class Tally: Sendable {
        let state = Mutex(State())
    }

    private struct State {
        var offered = 0
        /// The capture's frame counters seen, lowest to highest.
        var sequences: ClosedRange<Int>?
        var latencies: [Double] = []
        var skippedWhileOff = 0
    }

    /// `masks` are painted on the faces cut out, after detection (the consumers paint their own pictures).
    public init(
        detector: any FrameFaceDetector, sink: ResultSink, detection: DetectionSwitch? = nil, masks: PrivacyMasks = PrivacyMasks(polygons: [])
    ) {
        self.sink = sink
        // The detector is used on the live queue only, which is serial.
        let handed = HandedDetector(detector), tally = tally
        frames = LatestFrameQueue(label: "facecam.live") { job in
            Self.process(job, with: handed.detector, masks: masks, detection: detection, sink: sink, tally: tally)
        }
    }

    /// The counts so far; any thread may ask.
    public func counts() -> LiveCounts {
        tally.state.withLock { state in
            LiveCounts(
                captured: state.offered, processed: frames.processed - state.skippedWhileOff, dropped: frames.dropped,
                missed: state.sequences.map { $0.count - state.offered } ?? 0, skippedWhileOff: state.skippedWhileOff)
        }
    }

    /// Takes a live frame's job (`FrameJob.capture` says when it was taken), which replaces the one waiting, if any.
    public func submit(_ job: FrameJob) {
        let sequence = job.capture?.sequence ?? job.index
        tally.state.withLock { state in
            state.offered += 1
            state.sequences = state.sequences.map { min($0.lowerBound, sequence)...max($0.upperBound, sequence) } ?? sequence...sequence
        }
        frames.offer(job)
    }

    /// Waits for the frames still queued, and for what the sink's consumers queued, then tells what happened.
    public func finish(skipped: Int) -> LiveSummary {
        frames.drain()
        sink.drain()
        let counts = counts()
        return tally.state.withLock { state in
            let sorted = state.latencies.sorted()
            let p95 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
            return LiveSummary(
                counts: counts, skipped: skipped,
                meanLatency: sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count), percentile95Latency: p95)
        }
    }

    private static func process(
        _ job: FrameJob, with detector: any FrameFaceDetector, masks: PrivacyMasks, detection: DetectionSwitch?, sink: ResultSink,
        tally: Tally
    ) {
        if let detection, !detection.isOn {
            tally.state.withLock { $0.skippedWhileOff += 1 }
            return
        }
        let completion = job.run(with: detector, masks: masks)
        sink.consume(completion)
        guard case .frame = completion, let capturedAt = job.capture?.at else { return }
        let latency = monotonicSeconds() - capturedAt
        tally.state.withLock { $0.latencies.append(latency) }
    }
}
