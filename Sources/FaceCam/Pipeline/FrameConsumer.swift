/// A frame once tracked: what each consumer after the sink's own outputs is given.
public struct TrackedFrame: Sendable {
    /// The frame as searched, its result's faces with their track ids (and names), as written (but
    /// for clusters, which `--cluster` gives when the run ends).
    public var frame: DetectedFrame
    /// What its pictures mark: the faces, and where tracked faces the detector missed should be (redaction).
    public var marks: PreviewMarks

    public init(frame: DetectedFrame, marks: PreviewMarks) {
        self.frame = frame
        self.marks = marks
    }
}

/// Something a run's frames go to once they are tracked and their results written (live's previews,
/// observers, virtual camera and annotated JPEGs). Nothing goes back: a consumer's failures, now
/// or later on a queue of its own, go to the run's failures.
public protocol FrameConsumer: AnyObject, Sendable {
    /// On the sink's thread, in order; must return quickly. `fail` may be called from any thread.
    func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void)
    /// Waits for the work it queued; called once the last frame was consumed.
    func drain()
}
