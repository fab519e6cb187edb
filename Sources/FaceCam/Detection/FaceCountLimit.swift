/// What `FaceCountLimit` keeps the best of.
public enum FaceRanking: String, CaseIterable, Sendable {
    /// The largest boxes.
    case size
    /// The highest scores (detectors that give one).
    case score
    /// The highest `Face.quality` (`QualityEstimation`).
    case quality

    /// What a face is ranked by: higher is better.
    public func value(of face: Face) -> Double {
        switch self {
        case .size: Double(face.box.width) * Double(face.box.height)
        case .score: face.score ?? 0
        case .quality: face.quality ?? 0
        }
    }
}

/// Keeps the `count` best faces a detector finds, by `ranking` (ties going to the face reported
/// first), reported in facecam's order: for scripts that want the main face or a few.
public struct FaceCountLimit: FaceFilter {
    public let count: Int
    public let ranking: FaceRanking

    public init(count: Int, ranking: FaceRanking) {
        precondition(count > 0, "a face limit keeps at least one face")
        self.count = count
        self.ranking = ranking
    }

    public func kept(_ faces: [Face]) -> [Face] {
        guard faces.count > count else { return faces }
        let best = faces.indices.sorted { (ranking.value(of: faces[$1]), $0) < (ranking.value(of: faces[$0]), $1) }.prefix(count)
        return best.sorted().map { faces[$0] }
    }
}
