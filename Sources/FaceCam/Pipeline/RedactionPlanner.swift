import Synchronization

/// Redaction's first pass, as a consumer after the sink: records each searched frame's tracked faces
/// (in preview coordinates) into the plan of the video being read, and counts the tracks, the faces a
/// video's redaction hides. Frames come on the sink's thread; `begin`, `cut` and `end` from the thread
/// that submits, `cut` before its frame is submitted.
public final class RedactionPlanner: FrameConsumer {
    private let plan = Mutex<RedactionPlan?>(nil)

    public init() {}

    /// The frames from here on make the plan of one video, whose preview is `picture`.
    public func begin(_ settings: RedactionPlan.Settings, picture: PixelSize) {
        plan.withLock { $0 = RedactionPlan(settings: settings, picture: picture) }
    }

    /// The plan made since `begin`: call once its frames were all consumed.
    public func end() -> RedactionPlan? {
        plan.withLock { plan in
            defer { plan = nil }
            return plan
        }
    }

    public func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void) {
        let result = tracked.frame.result
        plan.withLock { plan in
            plan?.record(frame: result.frame, faces: result.faces.compactMap { face in face.id.map { ($0, face.preview) } })
        }
    }

    public func drain() {}
}
