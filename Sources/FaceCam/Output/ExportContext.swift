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

/// A results format written as one document: an opening, text as frames come, and a closing that
/// may hold what had to wait for the end (COCO's annotations, CVAT's tracks).
protocol ResultDocument {
    var opening: String { get }
    /// The text to write now for `result` (possibly empty).
    mutating func add(_ result: FrameResult) -> String
    /// The rest of the document; the writer ends with it once.
    mutating func closing() -> String
}

/// `text` with XML's (and HTML's) five special characters escaped, for element text and attribute
/// values; line breaks and tabs as character references (kept in attributes), other control
/// characters, which XML 1.0 cannot hold, as U+FFFD.
public func markupEscaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\n", "\r", "\t": out += "&#\(scalar.value);"
        case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "\u{FFFD}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}
