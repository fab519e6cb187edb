import Foundation
import Synchronization

/// What `live` shows of its frames once they are tracked and written: each observer is told of
/// every frame; the previews observers want, the virtual camera's frames and the annotated JPEGs
/// are each made (the privacy masks painted, the faces marked) on a queue of their own, which drops
/// to the newest frame, so none slows detection.
public final class LiveOutputs: FrameConsumer {
    /// A tracked frame for one of the queues, with where its failures go.
    private struct Picture: Sendable {
        var tracked: TrackedFrame
        var fail: @Sendable (FaceCamError) -> Void
    }

    private let observers: [any LiveObserver]
    private let annotateEvery: Int
    private let annotations: LatestFrameQueue<Picture>?
    private let deviceFrames: LatestFrameQueue<Picture>?
    private let previews: LatestFrameQueue<(Picture, [any LiveObserver])>?
    private let masks: PrivacyMasks
    /// Frames consumed so far: every `annotateEvery`-th is annotated.
    private let consumed = Mutex(0)
    /// The clock frames were stamped on (`capturedAt`), for their latency.
    private let clock: any MonotonicClock

    /// `annotator` saves every `annotateEvery`-th frame, `outputDevice` (a virtual camera) gets every
    /// frame it has room for, `observers` are told of each; every picture has `masks` painted on it and
    /// is marked as `marking` says. `source` names the input in what fails.
    public init(
        source: String, masks: PrivacyMasks, marking: PreviewMarking = .outline, annotator: Annotator? = nil, annotateEvery: Int = 1,
        outputDevice: V4L2OutputDevice? = nil, observers: [any LiveObserver] = [], clock: any MonotonicClock = SystemClock()
    ) {
        self.clock = clock
        self.observers = observers
        self.annotateEvery = annotateEvery
        self.masks = masks
        // The frame as the preview shows it: masked, rendered, its faces marked.
        let preview = { @Sendable (tracked: TrackedFrame) throws(FaceCamError) -> Frame in
            let frame = tracked.frame
            return try Annotator.marked(
                masks.applied(to: frame.image, geometry: frame.geometry), with: tracked.marks, geometry: frame.geometry,
                source: source, as: marking)
        }
        if let annotator {
            // Used on the annotation queue only: the lock is never contended.
            let saver = Mutex(annotator)
            annotations = LatestFrameQueue(label: "facecam.annotate") { picture in
                do throws(FaceCamError) {
                    let shown = try preview(picture.tracked), name = Self.name(ofFrame: picture.tracked.frame.result.frame)
                    _ = try saver.withLock { (annotator) throws(FaceCamError) in try annotator.save(shown, name: name) }
                } catch {
                    picture.fail(error)
                }
            }
        } else {
            annotations = nil
        }
        if let outputDevice {
            // Used on the device's queue only (the lock is never contended); dropped after its first failure.
            let writer = Mutex<V4L2OutputDevice?>(outputDevice)
            deviceFrames = LatestFrameQueue(label: "facecam.output-device") { picture in
                guard let device = writer.withLock({ $0 }) else { return }
                var frame = masks.applied(to: picture.tracked.frame.image, geometry: picture.tracked.frame.geometry)
                do {
                    try Annotator.mark(&frame, with: picture.tracked.marks.inBufferCoordinates(of: picture.tracked.frame.geometry), as: marking)
                    try device.write(frame)
                } catch let error as CaptureError {
                    writer.withLock { $0 = nil }
                    picture.fail(.outputDevice(path: device.path, reason: error.description))
                } catch {
                    picture.fail(.outputDevice(path: device.path, reason: "\(error)"))
                }
            }
        } else {
            deviceFrames = nil
        }
        if observers.isEmpty {
            previews = nil
        } else {
            previews = LatestFrameQueue(label: "facecam.preview") { picture, showing in
                do throws(FaceCamError) {
                    let shown = try preview(picture.tracked)
                    for observer in showing { observer.preview(shown, of: picture.tracked.frame.result) }
                } catch {
                    picture.fail(error)
                }
            }
        }
    }

    /// Annotated frames and crops are named by the capture's frame counter.
    public static func name(ofFrame sequence: Int) -> String {
        String(format: "frame-%08d", sequence)
    }

    public func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void) {
        let count = consumed.withLock { count in
            count += 1
            return count
        }
        let picture = Picture(tracked: tracked, fail: fail)
        if !observers.isEmpty {
            let latency = tracked.frame.capturedAt.map { clock.now - $0 } ?? 0
            for observer in observers { observer.processed(tracked.frame.result, latency: latency) }
            let showing = observers.filter(\.wantsPreviews)
            if !showing.isEmpty { previews?.offer((picture, showing)) }
        }
        deviceFrames?.offer(picture)
        if let annotations, (count - 1) % annotateEvery == 0 { annotations.offer(picture) }
    }

    public func drain() {
        annotations?.drain()
        deviceFrames?.drain()
        previews?.drain()
    }
}
