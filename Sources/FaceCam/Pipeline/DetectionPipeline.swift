import Dispatch
import Foundation
import Synchronization

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
            let completion = job.run(with: detector, masks: masks)
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
