#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization

/// A frame from a camera (or a video played as one), with when it was taken.
public struct LiveFrame: Sendable {
    public var frame: Frame
    /// The capture counter (the V4L2 sequence, or the video's frame index).
    public var sequence: Int
    /// Seconds since the first frame, from the capture timestamps.
    public var time: Double
    /// When the frame was taken, on CLOCK_MONOTONIC: the start of its latency.
    public var capturedAt: Double

    public init(frame: Frame, sequence: Int, time: Double, capturedAt: Double) {
        self.frame = frame
        self.sequence = sequence
        self.time = time
        self.capturedAt = capturedAt
    }
}

/// Seconds on CLOCK_MONOTONIC, the clock V4L2 stamps buffers with.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

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
/// Results are written as soon as each frame is done; annotated JPEGs, the
/// frames for an output device (a virtual camera) and the previews observers
/// show are marked on queues of their own, which drop in the same way, so
/// they never slow detection.
public final class LiveProcessor: @unchecked Sendable {
    private let detector: any FrameFaceDetector
    private let settings: GeometrySettings
    private let sink: ResultSink
    private let source: String
    private let annotateEvery: Int
    /// How faces are cut out for the sink's crops (`--crops`); nil for none.
    private let crops: FaceCropStyle?
    private var frames: LatestFrameQueue<LiveFrame>!
    private let annotations: LatestFrameQueue<(Frame, PreviewMarks, PreviewGeometry, String)>?
    private let deviceFrames: LatestFrameQueue<(Frame, PreviewMarks, PreviewGeometry)>?
    private let observers: [any LiveObserver]
    private let previews: LatestFrameQueue<(Frame, PreviewMarks, PreviewGeometry, FrameResult, [any LiveObserver])>?
    private let detection: DetectionSwitch?
    /// Painted on every picture written or shown, after detection.
    private let masks: PrivacyMasks
    private let state = Mutex(State())

    private struct State {
        var offered = 0
        /// The capture's frame counters seen, lowest to highest.
        var sequences: ClosedRange<Int>?
        var latencies: [Double] = []
        var skippedWhileOff = 0
    }

    public init(
        detector: any FrameFaceDetector, settings: GeometrySettings, sink: ResultSink, source: String,
        annotator: Annotator?, marking: PreviewMarking = .outline, annotateEvery: Int = 1, crops: FaceCropStyle? = nil,
        outputDevice: V4L2OutputDevice? = nil, observers: [any LiveObserver] = [], detection: DetectionSwitch? = nil,
        masks: PrivacyMasks = PrivacyMasks(polygons: [])
    ) {
        self.detection = detection
        self.masks = masks
        self.detector = detector
        self.crops = crops
        self.settings = settings
        self.sink = sink
        self.source = source
        self.annotateEvery = annotateEvery
        if let annotator {
            // Used on the annotation queue only.
            final class Saver: @unchecked Sendable {
                var annotator: Annotator
                init(_ annotator: Annotator) { self.annotator = annotator }
            }
            let saver = Saver(annotator)
            annotations = LatestFrameQueue(label: "facecam.annotate") { frame, marks, geometry, name in
                do throws(FaceCamError) {
                    let preview = try Annotator.marked(frame, with: marks, geometry: geometry, source: source, as: marking)
                    try saver.annotator.save(preview, name: name)
                } catch {
                    sink.consume(.failure(error))
                }
            }
        } else {
            annotations = nil
        }
        if let outputDevice {
            // Used on the device's queue only; dropped after its first failure.
            final class Writer: @unchecked Sendable {
                var device: V4L2OutputDevice?
                init(_ device: V4L2OutputDevice) { self.device = device }
            }
            let writer = Writer(outputDevice)
            deviceFrames = LatestFrameQueue(label: "facecam.output-device") { frame, marks, geometry in
                guard let device = writer.device else { return }
                var frame = frame
                do {
                    try Annotator.mark(&frame, with: marks.inBufferCoordinates(of: geometry), as: marking)
                    try device.write(frame)
                } catch let error as CaptureError {
                    writer.device = nil
                    sink.consume(.failure(.outputDevice(path: device.path, reason: error.description)))
                } catch {
                    sink.consume(.failure(.outputDevice(path: device.path, reason: "\(error)")))
                }
            }
        } else {
            deviceFrames = nil
        }
        self.observers = observers
        if observers.isEmpty {
            previews = nil
        } else {
            previews = LatestFrameQueue(label: "facecam.preview") { frame, marks, geometry, result, showing in
                do throws(FaceCamError) {
                    let preview = try Annotator.marked(frame, with: marks, geometry: geometry, source: source, as: marking)
                    for observer in showing { observer.preview(preview, of: result) }
                } catch {
                    sink.consume(.failure(error))
                }
            }
        }
        frames = LatestFrameQueue(label: "facecam.live") { [unowned self] in process($0) }
    }

    /// The counts so far; any thread may ask.
    public func counts() -> LiveCounts {
        state.withLock { state in
            LiveCounts(
                captured: state.offered, processed: frames.processed - state.skippedWhileOff, dropped: frames.dropped,
                missed: state.sequences.map { $0.count - state.offered } ?? 0, skippedWhileOff: state.skippedWhileOff)
        }
    }

    public func offer(_ frame: LiveFrame) {
        state.withLock { state in
            state.offered += 1
            state.sequences = state.sequences.map { min($0.lowerBound, frame.sequence)...max($0.upperBound, frame.sequence) }
                ?? frame.sequence...frame.sequence
        }
        frames.offer(frame)
    }

    /// Waits for the frames still queued, then tells what happened.
    public func finish(skipped: Int) -> LiveSummary {
        frames.drain()
        annotations?.drain()
        deviceFrames?.drain()
        previews?.drain()
        let counts = counts()
        return state.withLock { state in
            let sorted = state.latencies.sorted()
            let p95 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
            return LiveSummary(
                counts: counts, skipped: skipped,
                meanLatency: sorted.isEmpty ? 0 : sorted.reduce(0, +) / Double(sorted.count), percentile95Latency: p95)
        }
    }

    private func process(_ live: LiveFrame) {
        if let detection, !detection.isOn {
            state.withLock { $0.skippedWhileOff += 1 }
            return
        }
        do throws(FaceCamError) {
            let geometry = try settings.geometry(for: live.frame.size, source: source)
            let faces = try detector.detect(in: live.frame, geometry: geometry)
            let result = FrameResult(
                source: source, frame: live.sequence, time: live.time, size: live.frame.size,
                previewSize: geometry.previewSize, faces: faces, sequence: live.sequence)
            // Crops are named as annotated frames are, by the capture's frame counter.
            let name = String(format: "frame-%08d", live.sequence)
            // Painted once, and only when a picture is made from the frame.
            lazy var shown = masks.applied(to: live.frame, geometry: geometry)
            let cut = try crops.map { (style) throws(FaceCamError) in
                try CropRequest(style: style, name: name).cut(faces, from: shown, geometry: geometry)
            }
            let marks = sink.consume(.frame(result, image: live.frame, geometry: geometry, preview: nil, annotationName: nil, crops: cut))
            let latency = monotonicSeconds() - live.capturedAt
            let count = state.withLock { state in
                state.latencies.append(latency)
                return state.latencies.count
            }
            if let marks, !observers.isEmpty {
                // The record as written: the faces with their track ids.
                var written = result
                written.faces = marks.faces
                for observer in observers { observer.processed(written, latency: latency) }
                let showing = observers.filter(\.wantsPreviews)
                if !showing.isEmpty { previews?.offer((shown, marks, geometry, written, showing)) }
            }
            if let deviceFrames, let marks { deviceFrames.offer((shown, marks, geometry)) }
            if let annotations, let marks, (count - 1) % annotateEvery == 0 {
                annotations.offer((shown, marks, geometry, name))
            }
        } catch {
            sink.consume(.failure(error))
        }
    }
}
