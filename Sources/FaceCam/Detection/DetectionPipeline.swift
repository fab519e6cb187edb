import Dispatch
import Foundation
import Synchronization

/// One frame to find faces in, with everything needed to report it.
public struct FrameJob: Sendable {
    public var source: String
    public var index: Int
    public var time: Double
    public var frame: Frame
    public var geometry: PreviewGeometry
    /// Render the preview image too (for annotated JPEGs or video).
    public var renderPreview: Bool
    /// False for a frame that is only shown (rendered, and its tracked faces masked), not searched:
    /// the frames between detections when a redacted video keeps every frame.
    public var detect: Bool
    /// The annotated JPEG's file name without extension; nil for no JPEG.
    public var annotationName: String?
    /// The orientation to report in the result (still images).
    public var orientation: Orientation?
    /// Cut each face found out of the frame (`--crops`); nil for no crops.
    public var crops: CropRequest?

    public init(
        source: String, index: Int, time: Double, frame: Frame, geometry: PreviewGeometry,
        renderPreview: Bool = false, annotationName: String? = nil, orientation: Orientation? = nil, detect: Bool = true,
        crops: CropRequest? = nil
    ) {
        self.source = source
        self.index = index
        self.time = time
        self.frame = frame
        self.geometry = geometry
        self.renderPreview = renderPreview || annotationName != nil || !detect
        self.detect = detect
        self.annotationName = annotationName
        self.orientation = orientation
        self.crops = crops
    }
}

/// What became of a submitted frame or failure, delivered in submission order.
public enum Completion: Sendable {
    /// A frame's results and the frame they were found in, and its preview when one was asked for (a
    /// preview that cannot be drawn fails alone: the results still count), not yet marked; its faces cut out when asked.
    case frame(
        FrameResult, image: Frame, geometry: PreviewGeometry, preview: Result<Frame, FaceCamError>?, annotationName: String?,
        crops: FaceCrops? = nil)
    /// A frame that was shown but not searched (`FrameJob.detect` false): its preview, not yet marked.
    case shownOnly(source: String, index: Int, time: Double, geometry: PreviewGeometry, preview: Result<Frame, FaceCamError>)
    case failure(FaceCamError)
}

/// Detects faces on `jobs` threads, each with its own detector, and hands
/// completions to `deliver` one at a time on a serial queue, in the order
/// they were submitted, whatever order the threads finish in. At most
/// 2 x `jobs` frames are in flight: `submit` waits when that many are.
/// With one detector, frames reach it in order (fast mode relies on that).
/// A detector is told when its next frame comes from another source than
/// its last, so that no source's results depend on the one before.
/// One thread submits.
public final class DetectionPipeline: Sendable {
    private let work: DispatchQueue
    private let delivery = DispatchQueue(label: "facecam.deliver")
    private let pending = DispatchGroup()
    private let inFlight: DispatchSemaphore
    private let freeDetectors: DispatchSemaphore
    private let deliver: @Sendable (Completion) -> Void
    private let masks: PrivacyMasks
    private let state: Mutex<State>

    private struct State {
        /// The detectors not in use, with the source of the last frame each saw.
        var detectors: [(detector: Lent, source: String?)]
        var finished: [Int: Completion] = [:]
        var nextToDeliver = 0
        /// Taken by the submitting thread.
        var nextSequence = 0
    }

    /// A detector, which keeps state between frames and so is no `Sendable` type: the pool lends each
    /// to one job at a time, taken out of `state` before use and put back after.
    private struct Lent: @unchecked Sendable {
        let detector: any FrameFaceDetector
    }

    /// One detector per thread: `detectors.count` is the number of jobs.
    /// `masks` are painted on what is rendered and cut out, after detection.
    public init(
        detectors: [any FrameFaceDetector], masks: PrivacyMasks = PrivacyMasks(polygons: []),
        deliver: @escaping @Sendable (Completion) -> Void
    ) {
        precondition(!detectors.isEmpty, "a pipeline needs a detector")
        self.masks = masks
        work = detectors.count == 1
            ? DispatchQueue(label: "facecam.detect") : DispatchQueue(label: "facecam.detect", attributes: .concurrent)
        state = Mutex(State(detectors: detectors.map { (Lent(detector: $0), nil) }))
        self.deliver = deliver
        inFlight = DispatchSemaphore(value: 2 * detectors.count)
        freeDetectors = DispatchSemaphore(value: detectors.count)
    }

    public func submit(_ job: FrameJob) {
        let sequence = take()
        pending.enter()
        work.async { [self] in
            freeDetectors.wait()
            let (lent, lastSource) = state.withLock { $0.detectors.removeLast() }
            let detector = lent.detector
            if lastSource != job.source { detector.beginSource() }
            let completion = Self.process(job, with: detector, masks: masks)
            state.withLock { $0.detectors.append((lent, job.source)) }
            freeDetectors.signal()
            complete(sequence, completion)
            pending.leave()
        }
    }

    /// Reports `error` in its place among the frames.
    public func submit(failure error: FaceCamError) {
        complete(take(), .failure(error))
    }

    /// Waits until everything submitted has been delivered; more may be submitted afterwards.
    public func finish() {
        pending.wait()
        delivery.sync {}
    }

    private func take() -> Int {
        inFlight.wait()
        return state.withLock { state in
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
    }

    private static func process(_ job: FrameJob, with detector: any FrameFaceDetector, masks: PrivacyMasks) -> Completion {
        // Painted only when a picture is made from the frame.
        let shown = job.renderPreview || job.crops != nil ? masks.applied(to: job.frame, geometry: job.geometry) : job.frame
        let preview = job.renderPreview
            ? Result { () throws(FaceCamError) in try Annotator.render(shown, geometry: job.geometry, source: job.source) }
            : nil
        if !job.detect, let preview {
            return .shownOnly(source: job.source, index: job.index, time: job.time, geometry: job.geometry, preview: preview)
        }
        do {
            let faces = try detector.detect(in: job.frame, geometry: job.geometry)
            let result = FrameResult(
                source: job.source, frame: job.index, time: job.time, size: job.frame.size,
                previewSize: job.geometry.previewSize, faces: faces, orientation: job.orientation)
            let crops = try job.crops.map { (request) throws(FaceCamError) in try request.cut(faces, from: shown, geometry: job.geometry) }
            return .frame(result, image: job.frame, geometry: job.geometry, preview: preview, annotationName: job.annotationName, crops: crops)
        } catch {
            return .failure(.detection(source: job.source, frame: job.index, error: error))
        }
    }

    private func complete(_ sequence: Int, _ completion: Completion) {
        state.withLock { state in
            state.finished[sequence] = completion
            // Queued while holding the lock, so that runs completed on different threads stay in order.
            while let next = state.finished.removeValue(forKey: state.nextToDeliver) {
                state.nextToDeliver += 1
                delivery.async { [self] in
                    deliver(next)
                    inFlight.signal()
                }
            }
        }
    }
}
