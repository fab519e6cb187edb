/// How results are printed: `--format`'s names, each the name of one `OutputFormat` type, which says
/// what the format is (a stream, a document or a folder; with events or not) and writes it.
public enum ResultFormat: String, CaseIterable, Sendable {
    /// One JSON object per frame and line.
    case jsonl
    /// One row per face, after a header row.
    case csv
    /// Readable lines for people.
    case text
    /// A COCO instances document (one category, face), finished when the run is.
    case coco
    /// WIDER FACE's ground-truth layout: the image's name, its number of faces, a line per face; in a
    /// folder (`--output-dir`), its detection results, a file per image.
    case wider
    /// MOTChallenge's lines: a face a line, with its frame (from 1) and track id.
    case mot
    /// A folder: a label file per image and `data.yaml`.
    case yolo
    /// A folder: Pascal VOC's XML per image and its list of images.
    case voc
    /// A CVAT 1.1 XML document: images with boxes, or a video's tracks.
    case cvat
    /// A JSON array of Label Studio tasks with predictions.
    case labelstudio

    /// The type that writes the format: the one place a format's name meets its code.
    var type: any OutputFormat.Type {
        switch self {
        case .jsonl: JSONLinesFormat.self
        case .csv: CSVFormat.self
        case .text: TextFormat.self
        case .coco: COCODocument.self
        case .wider: WiderFormat.self
        case .mot: MOTFormat.self
        case .yolo: YOLOFolder.self
        case .voc: VOCFolder.self
        case .cvat: CVATDocument.self
        case .labelstudio: LabelStudioDocument.self
        }
    }

    /// Only ever a folder of files (`--output-dir`): YOLO and VOC.
    public var isFolderOnly: Bool { type is any FolderFormat.Type && !(type is any StreamFormat.Type) }

    /// Writes a folder of files given `--output-dir`: the folder formats, and WIDER (one file elsewhere).
    public var canWriteFolder: Bool { type is any FolderFormat.Type }

    /// A document whose end is written when the run ends.
    public var isDocument: Bool { type is any DocumentFormat.Type }

    /// Its file or folder is whole only once the run ends (a document, or a folder with index files): no use to a run
    /// that may never end, as live's.
    public var isWholeAtRunEnd: Bool { isDocument || isFolderOnly }

    /// A dataset file, which must not pass for a whole one unless the run finished: a file of it is
    /// written under a partial name and renamed only then.
    var isWrittenWhole: Bool { type.traits.isWrittenWhole }

    /// Its entries may be track events and best shots, not only faces or images.
    public var hasEvents: Bool { type is any EventFormat.Type }

    /// Its entries are a video's numbered frames and tracks: one video's to a file.
    public var isOneVideo: Bool { type.traits.isOneVideo }

    /// It has no place for a still image: its lines number frames and follow ids.
    public var isVideoOnly: Bool { type.traits.isVideoOnly }

    /// A dataset that names its images, relative to `--image-root` when given.
    public var namesImages: Bool { type.traits.namesImages }

    /// It has a place for what `detail` adds to a face.
    public func holds(_ detail: FaceDetail) -> Bool { type.traits.holds.contains(detail) }

    /// The extension of a results file in this format (`--output-dir`).
    public var fileExtension: String { type.traits.fileExtension }

    /// What it is, in a few words (`--format`'s help).
    public var summary: String { type.traits.summary }
}

/// What a face may carry beyond its box, score and landmarks, which a format has a place for or not.
public struct FaceDetail: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `--pose` and `--quality`.
    public static let poseAndQuality = FaceDetail(rawValue: 1)
    /// `--recognize`'s name and distance.
    public static let identity = FaceDetail(rawValue: 2)
    /// `--cluster`'s number.
    public static let cluster = FaceDetail(rawValue: 4)
    /// `--descriptors`' 128 numbers.
    public static let descriptor = FaceDetail(rawValue: 8)
}

/// What a format's files are, beyond how it writes them; every format states each.
struct FormatTraits {
    /// What it is, in a few words: its entry in `--format`'s help.
    var summary: String
    /// The extension of a results file in this format.
    var fileExtension: String
    /// A dataset file, which must not pass for a whole one unless the run finished.
    var isWrittenWhole: Bool
    /// Its entries are a video's numbered frames and tracks (MOTChallenge, CVAT's tracks): one video a file.
    var isOneVideo: Bool
    /// It has no place for a still image (MOTChallenge).
    var isVideoOnly: Bool
    /// A dataset that names its images (so `--image-root` applies).
    var namesImages: Bool
    /// What it has a place for besides boxes, scores and landmarks.
    var holds: FaceDetail
}

/// One results format: what it is (`traits`), and how it writes, by the protocols below it conforms to.
protocol OutputFormat {
    static var traits: FormatTraits { get }
    init(context: ExportContext)
}

/// A format written as one stream of text to a file or standard output: an opening, text as frames
/// come, and a closing. Each output gets its own value, which keeps what the format holds back.
protocol StreamFormat: OutputFormat {
    /// A header row or a document's start; "" for none.
    var opening: String { get }
    /// The text to write now for `result` (possibly empty).
    mutating func add(_ result: FrameResult) -> String
    /// The rest of the output; the writer ends with it once.
    mutating func closing() -> String
}

/// A stream of lines: nothing held back, nothing to end; a frame's text is its lines.
protocol LineFormat: StreamFormat {
    /// The text for one frame (possibly empty), ending in a newline when not empty.
    func render(_ result: FrameResult) -> String
}

extension LineFormat {
    mutating func add(_ result: FrameResult) -> String { render(result) }
    mutating func closing() -> String { "" }
}

/// A format whose entries may also be track events and best shots (JSON Lines, text).
protocol EventFormat: LineFormat {
    /// The text for a track event, ending in a newline.
    func render(_ event: TrackEvent) -> String
    /// The text for a track's best shot, ending in a newline.
    func render(_ shot: BestShot) -> String
}

/// A document, which holds part of itself back until the run ends (COCO's annotations, CVAT's tracks).
protocol DocumentFormat: StreamFormat {}

/// A format written as a folder, a file per image and index files at the end (`DatasetFolder`).
protocol FolderFormat: OutputFormat {
    /// The files `index` writes, which a run removes first, so that the folder only looks finished once it is.
    static var indexFiles: [String] { get }
    /// The name of a frame's item, before clashes: relative to the folder, without an extension.
    /// `source` is relative to the image root, `frame` "_NNNNNN" for a video's frames and "" for an image.
    func item(for result: FrameResult, source: String, frame: String) -> String
    /// The frame's file, named after its item (made unique): its path in the folder and its text.
    mutating func file(for result: FrameResult, item: String) -> (path: String, text: String)
    /// The index files, given every item written, in order, and the folder's path.
    func index(items: [String], folder: String) -> [(path: String, text: String)]
}
