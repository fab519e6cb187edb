/// What the dataset formats record about a run besides its frames.
public struct ExportContext: Sendable {
    /// Images are named by their path relative to it, when given.
    public var imageRoot: ImageRoot?
    /// The frames are a video's (tracks, numbered frames), not still images.
    public var video: Bool
    /// The program and detector, "facecam 0.4.0 yunet": Label Studio's `model_version`.
    public var model: String

    public init(imageRoot: ImageRoot? = nil, video: Bool = false, model: String = "facecam") {
        self.imageRoot = imageRoot
        self.video = video
        self.model = model
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

/// `text` with XML's five special characters escaped, for element text and attribute values.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default: out.append(character)
        }
    }
    return out
}
