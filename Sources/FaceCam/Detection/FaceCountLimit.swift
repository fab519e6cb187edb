/// What `FaceCountLimit` keeps the best of.
public enum FaceRanking: String, CaseIterable, Sendable {
    /// The largest boxes.
    case size
    /// The highest scores (detectors that give one).
    case score
    /// The highest `Face.quality` (`QualityEstimation`).
    case quality
}

/// Keeps the `count` best faces a detector finds, by `ranking` (ties going to the face reported
/// first), reported in facecam's order: for scripts that want the main face or a few.
public final class FaceCountLimit: FrameFaceDetector {
    public let detector: any FrameFaceDetector
    public let count: Int
    public let ranking: FaceRanking

    public init(_ detector: any FrameFaceDetector, count: Int, ranking: FaceRanking) {
        precondition(count > 0, "a face limit keeps at least one face")
        self.detector = detector
        self.count = count
        self.ranking = ranking
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        let faces = try detector.detect(in: frame, geometry: geometry)
        guard faces.count > count else { return faces }
        let rank: (Face) -> Double = switch ranking {
        case .size: { Double($0.box.width) * Double($0.box.height) }
        case .score: { $0.score ?? 0 }
        case .quality: { $0.quality ?? 0 }
        }
        let best = faces.indices.sorted { (rank(faces[$1]), $0) < (rank(faces[$0]), $1) }.prefix(count)
        return best.sorted().map { faces[$0] }
    }

    public func beginSource() { detector.beginSource() }
}
