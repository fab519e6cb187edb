/// The crop of a track's best face (`--best-shot`): the one of highest quality, saved when the track ends.
public struct BestShot: Hashable, Sendable {
    public var id: Int
    public var source: String
    /// The frame the face was best in, and its time.
    public var frame: Int
    public var time: Double
    public var quality: Double
    /// The crop's file.
    public var path: String

    public init(id: Int, source: String, frame: Int, time: Double, quality: Double, path: String) {
        self.id = id
        self.source = source
        self.frame = frame
        self.time = time
        self.quality = quality
        self.path = path
    }
}
