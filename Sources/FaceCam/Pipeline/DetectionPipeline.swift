import Dispatch
import Synchronization

/// The one frame driver of every command: runs each submitted job through a detector (`FrameJob.run`) and hands the
/// completions to `deliver` one at a time, in the order they were submitted, whatever order the threads finish in.
/// What it admits is its `Admission`: every frame (detect, video, redact), or the newest (live).
/// A detector is told when its next frame comes from another source than its last, so that no source's results
/// depend on the one before. One thread submits.
public final class DetectionPipeline: Sendable {
    /// Which of the frames submitted are run.
    public enum Admission: Sendable {
        /// Every frame, on `jobs` threads, each with its own detector. At most 2 x `jobs` frames are in flight, and
        /// fewer of large ones: a frame takes a slot per `bytesPerSlot` of its pixels (one at least, all at most),
        /// so that frames of 8000x8000 go two at a time and larger ones one by one; `submit` waits for a frame's
        /// slots. With one detector, frames reach it in order (fast mode relies on that).
        case everyFrame
        /// One detector, on one serial queue: `submit` never waits for a frame. While the detector is busy at most one
        /// frame waits, and a newer one replaces it (counted as dropped), so that what is detected is never more than
        /// about a frame behind the camera. `runs`, asked on that queue just before a frame would be run, lets it go
        /// undetected and undelivered when it says false (live while detection is switched off).
        case newestFrame(runs: @Sendable (FrameJob) -> Bool = { _ in true })
    }

    /// A slot's share of the memory frames in flight may take: a 24-megapixel frame (96 MB) takes one.
    public static let bytesPerSlot = 128 << 20

    private let admitted: Admitted

    /// How frames reach the detectors.
    private enum Admitted {
        case everyFrame(EveryFrame)
        /// The detector's queue, and where a failure goes once it is drained.
        case newestFrame(LatestFrameQueue<FrameJob>, deliver: @Sendable (Completion) -> Void)
    }

    /// One detector per thread: `detectors.count` is the number of jobs (one for `.newestFrame`).
    /// `masks` are painted on what is rendered and cut out, after detection.
    public init(
        detectors: [any FrameFaceDetector], masks: PrivacyMasks = PrivacyMasks(polygons: []), admission: Admission = .everyFrame,
        bytesPerSlot: Int = DetectionPipeline.bytesPerSlot, deliver: @escaping @Sendable (Completion) -> Void
    ) {
        precondition(!detectors.isEmpty, "a pipeline needs a detector")
        let lender = DetectorLender(detectors, masks: masks)
        switch admission {
        case .everyFrame:
            admitted = .everyFrame(EveryFrame(lender: lender, bytesPerSlot: bytesPerSlot, deliver: deliver))
        case .newestFrame(let runs):
            precondition(detectors.count == 1, "the newest frame goes to one detector")
            // The detector's queue delivers too: frames leave it in the order they were run.
            let queue = LatestFrameQueue<FrameJob>(label: "facecam.live") { job in
                if runs(job) { deliver(lender.run(job)) }
            }
            admitted = .newestFrame(queue, deliver: deliver)
        }
    }

    /// Frames replaced while they waited: none with `.everyFrame`.
    public var dropped: Int {
        switch admitted {
        case .everyFrame: 0
        case .newestFrame(let queue, _): queue.dropped
        }
    }

    public func submit(_ job: FrameJob) {
        switch admitted {
        case .everyFrame(let every): every.submit(job)
        case .newestFrame(let queue, _): queue.offer(job)
        }
    }

    /// Reports `error` in its place among the frames (with `.newestFrame`, once the frames queued are delivered).
    public func submit(failure error: FaceCamError) {
        switch admitted {
        case .everyFrame(let every):
            every.submit(failure: error)
        case .newestFrame(let queue, let deliver):
            queue.drain()
            deliver(.failure(error))
        }
    }

    /// Waits until everything submitted has been delivered; more may be submitted afterwards.
    public func finish() {
        switch admitted {
        case .everyFrame(let every): every.finish()
        case .newestFrame(let queue, _): queue.drain()
        }
    }
}

/// The detectors not in use, with the source of the last frame each saw: each is lent to one job at a time, taken out
/// before use and put back after.
private final class DetectorLender: Sendable {
    private let free: Mutex<[(detector: HandedDetector, source: String?)]>
    private let masks: PrivacyMasks

    init(_ detectors: [any FrameFaceDetector], masks: PrivacyMasks) {
        free = Mutex(detectors.map { (HandedDetector($0), nil) })
        self.masks = masks
    }

    var count: Int { free.withLock { $0.count } }

    /// Runs `job` on a free detector (the caller makes sure one is), told first when the job's source is not the
    /// last one it saw.
    func run(_ job: FrameJob) -> Completion {
        let (lent, lastSource) = free.withLock { $0.removeLast() }
        let detector = lent.detector
        if lastSource != job.source { detector.beginSource() }
        let completion = job.run(with: detector, masks: masks)
        free.withLock { $0.append((lent, job.source)) }
        return completion
    }
}

/// Every frame's admission: the threads, the slots, and the order of delivery.
private final class EveryFrame: Sendable {
    private let lender: DetectorLender
    private let work: DispatchQueue
    private let delivery = DispatchQueue(label: "facecam.deliver")
    private let pending = DispatchGroup()
    private let inFlight: DispatchSemaphore
    private let slots: Int
    private let bytesPerSlot: Int
    private let freeDetectors: DispatchSemaphore
    private let deliver: @Sendable (Completion) -> Void
    private let order = Mutex(Order())

    private struct Order {
        /// Completions waiting for those before them, with the slots each holds.
        var finished: [Int: (Completion, weight: Int)] = [:]
        var nextToDeliver = 0
        /// Taken by the submitting thread.
        var nextSequence = 0
    }

    init(lender: DetectorLender, bytesPerSlot: Int, deliver: @escaping @Sendable (Completion) -> Void) {
        let jobs = lender.count
        self.lender = lender
        work = jobs == 1 ? DispatchQueue(label: "facecam.detect") : DispatchQueue(label: "facecam.detect", attributes: .concurrent)
        slots = 2 * jobs
        inFlight = DispatchSemaphore(value: slots)
        self.bytesPerSlot = bytesPerSlot
        freeDetectors = DispatchSemaphore(value: jobs)
        self.deliver = deliver
    }

    func submit(_ job: FrameJob) {
        let weight = min(slots, max(1, (job.frame.pixels.count + bytesPerSlot - 1) / bytesPerSlot))
        let taken = take(weight)
        pending.enter()
        work.async { [self] in
            freeDetectors.wait()
            let completion = lender.run(job)
            freeDetectors.signal()
            complete(taken, completion)
            pending.leave()
        }
    }

    func submit(failure error: FaceCamError) {
        complete(take(1), .failure(error))
    }

    func finish() {
        pending.wait()
        delivery.sync {}
    }

    /// Waits for `weight` slots (one thread submits, so two frames never hold part of theirs each) and numbers the frame.
    private func take(_ weight: Int) -> (sequence: Int, weight: Int) {
        for _ in 0..<weight { inFlight.wait() }
        return order.withLock { order in
            defer { order.nextSequence += 1 }
            return (order.nextSequence, weight)
        }
    }

    private func complete(_ taken: (sequence: Int, weight: Int), _ completion: Completion) {
        order.withLock { order in
            order.finished[taken.sequence] = (completion, taken.weight)
            // Queued while holding the lock, so that runs completed on different threads stay in order.
            while let (next, weight) = order.finished.removeValue(forKey: order.nextToDeliver) {
                order.nextToDeliver += 1
                delivery.async { [self] in
                    deliver(next)
                    for _ in 0..<weight { inFlight.signal() }
                }
            }
        }
    }
}
