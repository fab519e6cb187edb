/// What a live run shows while it runs (live --serve, --show): told of every
/// processed frame and, when it wants them, handed each preview marked as
/// the annotations are. Calls come from the sink's thread and `LiveOutputs`'
/// queues, never from capture, and must return quickly.
public protocol LiveObserver: AnyObject, Sendable {
    /// Whether `preview(_:of:)` is called for the frame just processed (asked after `processed`):
    /// a preview costs a render and a mark.
    var wantsPreviews: Bool { get }
    /// After a frame's result was written: the record as written (track ids included) and the
    /// seconds from capture to result. On the detection queue.
    func processed(_ result: FrameResult, latency: Double)
    /// A processed frame as the preview shows it, faces outlined or hidden. On the preview
    /// queue, which drops to the newest frame, so a slow observer misses frames and slows nothing.
    func preview(_ preview: Frame, of result: FrameResult)
}

/// The counts of a live run so far.
public struct LiveCounts: Sendable, Equatable {
    public var captured = 0
    public var processed = 0
    /// Frames replaced while waiting for the detector.
    public var dropped = 0
    /// Frames the driver never delivered: gaps in the sequence numbers.
    public var missed = 0
    /// Frames let go undetected while detection was switched off.
    public var skippedWhileOff = 0
    /// What live --mqtt's connection did; nil without it.
    public var mqtt: BrokerCounts?

    public init(captured: Int = 0, processed: Int = 0, dropped: Int = 0, missed: Int = 0, skippedWhileOff: Int = 0) {
        self.captured = captured
        self.processed = processed
        self.dropped = dropped
        self.missed = missed
        self.skippedWhileOff = skippedWhileOff
    }
}
