import Foundation

/// A face in a ground truth or among a run's detections.
public struct ListedFace: Sendable, Equatable {
    public var box: Rect
    /// A detection's score (1 when the detector gives none, as Haar's cascades); unused in a ground truth.
    public var score: Double
    /// Ground truth: a face that counts neither as found nor as missed (outside WIDER's set, COCO's crowds).
    public var ignored: Bool

    public init(box: Rect, score: Double = 1, ignored: Bool = false) {
        self.box = box
        self.score = score
        self.ignored = ignored
    }
}

/// The faces of one image, named as the file names it.
public struct ListedImage: Sendable {
    public var name: String
    public var faces: [ListedFace]

    public init(name: String, faces: [ListedFace]) {
        self.name = name
        self.faces = faces
    }
}

/// A file of boxes per image: a ground truth, or a run's detections.
public struct FaceList: Sendable {
    public enum Format: String, Sendable {
        /// WIDER FACE's `*_bbx_gt.txt` (ten numbers a face) or its per-image detection results (five).
        case wider
        /// A COCO instances file (images and annotations), facecam's `--format coco` among them.
        case coco
        /// A COCO results list: annotations naming their images by id only.
        case cocoResults = "coco results"
        /// ../shared/data/crowd's labels.json: file name to `boxes` and `hard`.
        case crowdLabels = "crowd labels"
        /// facecam's JSON Lines.
        case jsonl
        /// A folder of Pascal VOC XML files (`Annotations/`), facecam's `--format voc` among them.
        case voc
        /// A CVAT 1.1 XML file (images or a video's tracks), facecam's `--format cvat` among them.
        case cvat
        /// Label Studio image tasks (a JSON array), facecam's `--format labelstudio` among them.
        case labelStudio = "label studio"
    }

    public var path: String
    public var format: Format
    public var images: [ListedImage]
    /// False when images without faces are left out (COCO results, WIDER detection files), so
    /// an image missing from the list cannot be told from one with no face.
    public var listsEveryImage: Bool
    /// A COCO file's image ids to names, for the results lists that refer to them.
    public var imageIDs: [Int: String] = [:]

    public init(path: String, format: Format, images: [ListedImage], listsEveryImage: Bool) {
        self.path = path
        self.format = format
        self.images = images
        self.listsEveryImage = listsEveryImage
    }

    /// The larger of these files is refused rather than read into memory.
    public static let sizeLimit = 1 << 30

    /// Reads `path` (a file, or a directory of VOC annotations or WIDER detection files), telling its format by its content;
    /// each format's reader is in its file in Output/Formats, beside its writer.
    /// A COCO results list names images by id: `cocoImages` (from the COCO ground truth) resolves them.
    public static func load(_ file: FilePath, cocoImages: [Int: String] = [:]) throws(EvaluationInputError) -> FaceList {
        // Files are opened by their bytes, which need not be UTF-8; messages and results show the name.
        let path = file.description
        let kind: FileKind
        do {
            kind = try fileStatus(file).kind
        } catch {
            throw EvaluationInputError(path: path, reason: "\(error.reason): check the path")
        }
        if kind == .directory { return try loadDirectory(file) }
        guard kind == .regular else {
            throw EvaluationInputError(path: path, reason: "not a regular file: give a ground-truth or detection file")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor(opening: file, flags: O_RDONLY).readAll(limit: sizeLimit)
        } catch {
            throw EvaluationInputError(path: path, reason: "\(error.reason): check that it is readable and under 1 GiB")
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw EvaluationInputError(path: path, reason: "not UTF-8 text: give a ground-truth or detection file")
        }
        // A byte order mark, as some Windows tools write, is not content.
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let start = text.first { !$0.isWhitespace }
        if start == "<" { return try loadCVAT(path, text: text) }
        if start == "[" || (start == "{" && !looksLikeJSONLines(text)) {
            // The text is not needed again: only the bytes and the values read from them stay in memory.
            let hadByteOrderMark = text.utf8.count < bytes.count
            text = ""
            return try loadJSONDocument(path, bytes: hadByteOrderMark ? Array(bytes.dropFirst(3)) : bytes, cocoImages: cocoImages)
        }
        if start == "{" { return try loadJSONLines(path, text: text) }
        return FaceList(path: path, format: .wider, images: try parseWider(path, text: text), listsEveryImage: true)
    }

    /// The lines of a text file: split at LF and CRLF only, since a name may hold any other line break
    /// (U+2028, a lone CR), as facecam writes it.
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// One JSON object per line, the first of them complete on its line.
    private static func looksLikeJSONLines(_ text: String) -> Bool {
        // Only a line that names a record's keys is parsed: a COCO document on one line is parsed once, later.
        guard let first = Self.lines(of: text).first(where: { !$0.isEmpty }),
              first.contains("\"source\"") || first.contains("\"event\""),
              let object = try? JSONValue.parse(first), object.members != nil else { return false }
        return object["source"] != nil || object["event"] != nil
    }
}

/// A ground-truth or detection file that cannot be used: which file, where in it, and what to do.
public struct EvaluationInputError: Error, Sendable, CustomStringConvertible {
    public var path: String
    /// "line 12", "annotations[3]": where in the file, when it is one place.
    public var place: String?
    public var reason: String

    public init(path: String, place: String? = nil, reason: String) {
        self.path = path
        self.place = place
        self.reason = reason
    }

    /// Names from the files reach the terminal as file names do everywhere: control characters as `\xNN`.
    public var description: String { FilePath("\(path)\(place.map { " \($0)" } ?? ""): \(reason)").description }
}

// MARK: - Folders

extension FaceList {
    /// A folder of VOC annotations (XML files), or of WIDER detection files: WIDER's evaluation reads
    /// detections as one file per image, in a folder per event.
    static func loadDirectory(_ directory: FilePath) throws(EvaluationInputError) -> FaceList {
        let path = directory.description
        var images: [ListedImage] = []
        let xml: [FilePath]
        let text: [FilePath]
        do {
            xml = try files(under: directory, ending: ".xml")
            text = xml.isEmpty ? try files(under: directory, ending: ".txt") : []
        } catch {
            throw EvaluationInputError(path: error.path ?? path, reason: "\(error.reason): check the directory")
        }
        if !xml.isEmpty { return try loadVOC(directory, files: xml) }
        guard !text.isEmpty else {
            throw EvaluationInputError(path: path, reason: "holds no .xml or .txt file: give VOC annotations or WIDER FACE detection files")
        }
        for file in text {
            let list = try load(file)
            guard list.format == .wider else {
                throw EvaluationInputError(path: file.description, reason: "not WIDER FACE's format, which the files of a directory must be")
            }
            images += list.images
        }
        return FaceList(path: path, format: .wider, images: images, listsEveryImage: false)
    }

    private static func files(under directory: FilePath, ending suffix: String) throws(SystemError) -> [FilePath] {
        var files: [FilePath] = []
        for entry in try directoryEntries(directory).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let path = directory.appending(entry)
            switch try fileStatus(path).kind {
            case .directory: files += try self.files(under: path, ending: suffix)
            case .regular where entry.reversed().starts(with: suffix.utf8.reversed()): files.append(path)
            default: break
            }
        }
        return files
    }
}

extension FaceList {
    /// A score as an XML file writes it: 1 when absent; one that is not a finite number is refused,
    /// as WIDER's and COCO's readers refuse it.
    static func score(_ text: String?, path: String, place: String) throws(EvaluationInputError) -> Double {
        guard let text else { return 1 }
        guard let score = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), score.isFinite else {
            throw EvaluationInputError(path: path, place: place, reason: "the score \(text) is not a finite number")
        }
        return score
    }
}

// MARK: - JSON

extension FaceList {
    static func loadJSONDocument(_ path: String, bytes: [UInt8], cocoImages: [Int: String]) throws(EvaluationInputError) -> FaceList {
        let document: JSONValue
        do {
            document = try JSONValue.parse(bytes)
        } catch {
            throw EvaluationInputError(path: path, reason: "not valid JSON (\(error.description)): check that the file is complete")
        }
        if let tasks = document.array, tasks.first?["data"] != nil {
            return try loadLabelStudio(path, tasks)
        }
        if let results = document.array {
            guard !cocoImages.isEmpty else {
                throw EvaluationInputError(
                    path: path, reason: "a COCO results list names images by id only: give the COCO ground truth it refers to")
            }
            let faces = try cocoAnnotations(results, in: path, key: "", categories: nil)
            var images: [ListedImage] = []
            for (id, listed) in faces.sorted(by: { $0.key < $1.key }) {
                guard let name = cocoImages[id] else {
                    throw EvaluationInputError(path: path, reason: "image_id \(id) is not an image of the COCO ground truth")
                }
                images.append(ListedImage(name: name, faces: listed))
            }
            return FaceList(path: path, format: .cocoResults, images: images, listsEveryImage: false)
        }
        guard let members = document.members else {
            throw EvaluationInputError(path: path, reason: "a JSON document that is neither COCO nor crowd labels")
        }
        if document["images"] != nil || document["annotations"] != nil { return try loadCOCO(path, document) }
        return try loadCrowdLabels(path, members)
    }

    /// ../shared/data/crowd's labels: `{"NAME": {"boxes": [[x, y, w, h], ...], "hard": [indices]}}`;
    /// boxes outside `hard` are ignored.
    private static func loadCrowdLabels(_ path: String, _ members: [(key: String, value: JSONValue)]) throws(EvaluationInputError) -> FaceList {
        var images: [ListedImage] = []
        // A name given twice is taken at its last place, as JSON readers take a repeated key.
        let entries = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
            guard let boxes = entry["boxes"]?.array else {
                throw EvaluationInputError(path: path, place: name, reason: "needs boxes: check that it is COCO or crowd labels")
            }
            let hardList = entry["hard"].map { $0.array?.map(integer) }
            if let hardList, hardList == nil || hardList!.contains(where: { $0 == nil }) {
                throw EvaluationInputError(path: path, place: name, reason: "hard must be a list of box indices")
            }
            let hard = Set((hardList ?? nil)?.compactMap { $0 } ?? [])
            var faces: [ListedFace] = []
            for (index, value) in boxes.enumerated() {
                guard let box = rect(value) else {
                    throw EvaluationInputError(path: path, place: "\(name) boxes[\(index)]", reason: "must be [x, y, width, height]")
                }
                faces.append(ListedFace(box: box, ignored: entry["hard"] != nil && !hard.contains(index)))
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return FaceList(path: path, format: .crowdLabels, images: images, listsEveryImage: true)
    }

    static func integer(_ value: JSONValue?) -> Int? {
        value?.number.flatMap { Int(exactly: $0) }
    }

    static func rect(_ value: JSONValue?) -> Rect? {
        guard let numbers = value?.array, numbers.count == 4 else { return nil }
        let values = numbers.compactMap(\.number)
        guard values.count == 4, values.allSatisfy(\.isFinite), values[2] >= 0, values[3] >= 0 else { return nil }
        return Rect(x: values[0], y: values[1], width: values[2], height: values[3])
    }
}
