import Dispatch
import Foundation
import Synchronization

/// Detects faces on `jobs` threads, each with its own detector, and hands
/// completions to `deliver` one at a time on a serial queue, in the order
/// they were submitted, whatever order the threads finish in. At most
/// 2 x `jobs` frames are in flight, and fewer of large ones: a frame takes a slot per
/// `bytesPerSlot` of its pixels (one at least, all at most), so that frames of 8000x8000 go two at
/// a time and larger ones one by one; `submit` waits for a frame's slots.
/// With one detector, frames reach it in order (fast mode relies on that).
/// A detector is told when its next frame comes from another source than
/// its last, so that no source's results depend on the one before.
/// One thread submits.
public final class DetectionPipeline: Sendable {
    private let work: DispatchQueue
    private let delivery = DispatchQueue(label: "facecam.deliver")
    private let pending = DispatchGroup()
    private let inFlight: DispatchSemaphore
    private let slots: Int
    private let bytesPerSlot: Int
    /// A slot's share of the memory frames in flight may take: a 24-megapixel frame (96 MB) takes one.
    public static let bytesPerSlot = 128 << 20
    private let freeDetectors: DispatchSemaphore
    private let deliver: @Sendable (Completion) -> Void
    private let masks: PrivacyMasks
    private let state: Mutex<State>

    private struct State {
        /// The detectors not in use, with the source of the last frame each saw: each is lent to one job at a time,
        /// taken out before use and put back after.
        var detectors: [(detector: HandedDetector, source: String?)]
        /// Completions waiting for those before them, with the slots each holds.
        var finished: [Int: (Completion, weight: Int)] = [:]
        var nextToDeliver = 0
        /// Taken by the submitting thread.
        var nextSequence = 0
    }

    /// One detector per thread: `detectors.count` is the number of jobs.
    /// `masks` are painted on what is rendered and cut out, after detection.
    public init(
        detectors: [any FrameFaceDetector], masks: PrivacyMasks = PrivacyMasks(polygons: []), bytesPerSlot: Int = DetectionPipeline.bytesPerSlot,
        deliver: @escaping @Sendable (Completion) -> Void
    ) {
        self.bytesPerSlot = bytesPerSlot
        precondition(!detectors.isEmpty, "a pipeline needs a detector")
        self.masks = masks
        work = detectors.count == 1
            ? DispatchQueue(label: "facecam.detect") : DispatchQueue(label: "facecam.detect", attributes: .concurrent)
        state = Mutex(State(detectors: detectors.map { (HandedDetector($0), nil) }))
        self.deliver = deliver
        slots = 2 * detectors.count
        inFlight = DispatchSemaphore(value: slots)
        freeDetectors = DispatchSemaphore(value: detectors.count)
    }

    public func submit(_ job: FrameJob) {
        let weight = min(slots, max(1, (job.frame.pixels.count + bytesPerSlot - 1) / bytesPerSlot))
        let taken = take(weight)
        pending.enter()
        work.async { [self] in
            freeDetectors.wait()
            let (lent, lastSource) = state.withLock { $0.detectors.removeLast() }
            let detector = lent.detector
            if lastSource != job.source { detector.beginSource() }
            let completion = job.run(with: detector, masks: masks)
            state.withLock { $0.detectors.append((lent, job.source)) }
            freeDetectors.signal()
            complete(taken, completion)
            pending.leave()
        }
    }

    /// Reports `error` in its place among the frames.
    public func submit(failure error: FaceCamError) {
        complete(take(1), .failure(error))
    }

    /// Waits until everything submitted has been delivered; more may be submitted afterwards.
    public func finish() {
        pending.wait()
        delivery.sync {}
    }

    /// Waits for `weight` slots (one thread submits, so two frames never hold part of theirs each) and numbers the frame.
    private func take(_ weight: Int) -> (sequence: Int, weight: Int) {
        for _ in 0..<weight { inFlight.wait() }
        return state.withLock { state in
            defer { state.nextSequence += 1 }
            return (state.nextSequence, weight)
        }
    }

    private func complete(_ taken: (sequence: Int, weight: Int), _ completion: Completion) {
        state.withLock { state in
            state.finished[taken.sequence] = (completion, taken.weight)
            // Queued while holding the lock, so that runs completed on different threads stay in order.
            while let (next, weight) = state.finished.removeValue(forKey: state.nextToDeliver) {
                state.nextToDeliver += 1
                delivery.async { [self] in
                    deliver(next)
                    for _ in 0..<weight { inFlight.signal() }
                }
            }
        }
    }
}
