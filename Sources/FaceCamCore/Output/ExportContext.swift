/// What the dataset formats record about a run besides its frames.
public struct ExportContext: Sendable {
    /// Images are named by their path relative to it, when given.
    public var imageRoot: ImageRoot?
    /// The frames are a video's (tracks, numbered frames), not still images.
    public var video: Bool
    /// The program and detector, "facecam 0.4.0 yunet": Label Studio's `model_version`.
    public var model: String
    /// Faces may carry a pose and quality (`--pose`, `--quality`): CVAT declares their attributes.
    public var faceAttributes: Bool
    /// Faces may carry a name and distance (`--recognize`), and a cluster (`--cluster`): CVAT declares them too.
    public var identities: Bool
    public var clusters: Bool

    public init(
        imageRoot: ImageRoot? = nil, video: Bool = false, model: String = "facecam", faceAttributes: Bool = false,
        identities: Bool = false, clusters: Bool = false
    ) {
        self.imageRoot = imageRoot
        self.video = video
        self.model = model
        self.faceAttributes = faceAttributes
        self.identities = identities
        self.clusters = clusters
    }

    /// `source` relative to the image root, when it is inside; else as given.
    func name(of source: String) -> String {
        imageRoot?.relative(source) ?? source
    }
}
