/// What a frame's faces carry beyond their boxes, and how many are kept: the default reports every
/// face, with no pose or quality.
public struct FaceReport: Sendable, Equatable {
    /// The most faces kept per frame, the best by `ranking`; nil keeps every face.
    public var maxFaces: Int?
    public var ranking: FaceRanking
    public var pose: Bool
    public var quality: Bool

    public init(maxFaces: Int? = nil, ranking: FaceRanking = .size, pose: Bool = false, quality: Bool = false) {
        self.maxFaces = maxFaces
        self.ranking = ranking
        self.pose = pose
        self.quality = quality
    }

    /// Faces get a pose: asked for, or needed by their quality.
    public var posesFaces: Bool { pose || quality || ranking == .quality }

    /// `detector` wrapped as `zones` and this report say, in the one order that works: zones first, so
    /// that a face dropped there counts for no limit; then the count limit, before the pose's search
    /// per face, unless faces are ranked by quality, which needs the pose first. The pose's searches
    /// run the shipped YuNet on `engine`.
    public func wrapping(
        _ detector: any FrameFaceDetector, zones: ZoneFilter?, engine: EngineSettings
    ) throws(FaceCamError) -> any FrameFaceDetector {
        let zoned = zones.map { FilteredDetector(detector, $0) } ?? detector
        let limit = { (detector: any FrameFaceDetector) -> any FrameFaceDetector in
            maxFaces.map { FilteredDetector(detector, FaceCountLimit(count: $0, ranking: ranking)) } ?? detector
        }
        guard posesFaces else { return limit(zoned) }
        let rankedByQuality = ranking == .quality
        let posed = try PoseEstimation(rankedByQuality ? zoned : limit(zoned), model: try FaceModelFile(shipped: .yunet), engine: engine)
        guard quality || rankedByQuality else { return posed }
        let rated = QualityEstimation(posed)
        return rankedByQuality ? limit(rated) : rated
    }
}
