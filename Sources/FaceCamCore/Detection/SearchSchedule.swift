/// Which frames of a video redaction's first pass searches in full: the first, each that begins a new
/// scene, and at most `interval` frames after the last searched; the faces are followed over the frames
/// between (`RedactionPlan`).
public struct SearchSchedule: Sendable {
    public enum Decision: Equatable, Sendable {
        /// Search this frame; `cut` when it begins a new scene.
        case search(cut: Bool)
        case skip
    }

    public let interval: Int
    private var cuts = SceneCuts()
    private var lastSearched: Int?

    public init(interval: Int) {
        precondition(interval >= 1, "an interval of 1 frame or more")
        self.interval = interval
    }

    /// The interval a video of `framesPerSecond` gets by default: a third of a second's frames, at least 1;
    /// `intervalAtUnknownRate` when the rate is unknown.
    public static func interval(framesPerSecond: Double) -> Int {
        guard framesPerSecond.isFinite, framesPerSecond > 0 else { return intervalAtUnknownRate }
        return max(1, Int((framesPerSecond / 3).rounded()))
    }

    public static let intervalAtUnknownRate = 8

    /// Whether to search `frame`, frame `index` of the video (frames come in order, each once).
    public mutating func next(_ frame: Frame, index: Int) -> Decision {
        let cut = cuts.isCut(frame)
        guard cut || lastSearched.map({ index - $0 >= interval }) ?? true else { return .skip }
        lastSearched = index
        return .search(cut: cut)
    }
}
