import Synchronization

/// Redaction's first pass, as a consumer after the sink: records each searched frame's tracked faces (in preview
/// coordinates) into the plan of the video being read twice, or counts the tracks of one read once (the faces its
/// redaction hides), keeping their ids alone. Frames come on the sink's thread; `plan`, `count`, `cut` and the ends
/// from the thread that submits, `cut` before its frame is submitted.
public final class RedactionPlanner: FrameConsumer {
    private enum Work {
        case idle
        case planning(RedactionPlan)
        case counting(Set<Int>)
    }

    private let work = Mutex(Work.idle)

    public init() {}

    /// The frames from here on make the plan of one video, whose preview is `picture`.
    public func plan(_ settings: RedactionPlan.Settings, picture: PixelSize) {
        work.withLock { $0 = .planning(RedactionPlan(settings: settings, picture: picture)) }
    }

    /// The frames from here on are counted by track, for one video read once.
    public func count() {
        work.withLock { $0 = .counting([]) }
    }

    /// Frame `index`, about to be submitted, begins a new scene.
    public func cut(at index: Int) {
        work.withLock { work in
            guard case .planning(var plan) = work else { return }
            // Taken out while it changes, so that the plan's storage is not copied.
            work = .idle
            plan.cut(at: index)
            work = .planning(plan)
        }
    }

    /// The plan made since `plan`: call once its frames were all consumed.
    public func endPlan() -> RedactionPlan? {
        work.withLock { work in
            defer { work = .idle }
            if case .planning(let plan) = work { return plan } else { return nil }
        }
    }

    /// The tracks counted since `count`: call once its frames were all consumed.
    public func endCount() -> Int {
        work.withLock { work in
            defer { work = .idle }
            if case .counting(let ids) = work { return ids.count } else { return 0 }
        }
    }

    public func consume(_ tracked: TrackedFrame, fail: @escaping @Sendable (FaceCamError) -> Void) {
        let result = tracked.frame.result
        work.withLock { work in
            switch work {
            case .idle:
                break
            case .planning(var plan):
                // Taken out while it changes, so that the plan's storage is not copied.
                work = .idle
                plan.record(frame: result.frame, faces: result.faces.compactMap { face in face.id.map { ($0, face.preview) } })
                work = .planning(plan)
            case .counting(var ids):
                work = .idle
                ids.formUnion(result.faces.compactMap(\.id))
                work = .counting(ids)
            }
        }
    }

    public func drain() {}
}
