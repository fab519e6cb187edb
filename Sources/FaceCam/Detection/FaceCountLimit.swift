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
        let best = faces.indices.sorted { (ranking.value(of: faces[$1]), $0) < (ranking.value(of: faces[$0]), $1) }.prefix(count)
        return best.sorted().map { faces[$0] }
    }

    public func beginSource() { detector.beginSource() }
}
