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

    /// Reads `path` (a file, or a directory of VOC annotations or WIDER detection files), telling its format by its content.
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

// MARK: - WIDER FACE text

extension FaceList {
    /// WIDER's layout: the image's name, the number of faces, then a line per face (one line of
    /// zeros for none): x y w h and, in the ground truth, blur expression illumination invalid
    /// occlusion pose, or, in detection results, the score. `invalid` faces are ignored.
    static func parseWider(_ path: String, text: String) throws(EvaluationInputError) -> [ListedImage] {
        let lines = Self.lines(of: text).map { $0.trimmingCharacters(in: .whitespaces) }
        var images: [ListedImage] = []
        var index = 0
        func fail(_ reason: String) -> EvaluationInputError {
            EvaluationInputError(path: path, place: "line \(index + 1)", reason: reason + ": check that it is WIDER FACE's format")
        }
        while index < lines.count {
            let name = String(lines[index].prefix(200))
            index += 1
            if name.isEmpty { continue }
            guard index < lines.count, let count = Int(lines[index]), count >= 0 else {
                throw fail("expected the number of faces of \(name)")
            }
            index += 1
            var faces: [ListedFace] = []
            // The ground truth follows a count of 0 with a line of zeros; detection files do not.
            let placeholder = count == 0 && index < lines.count
                && lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).count >= 4
                && lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).allSatisfy { Double($0) != nil }
            for _ in 0..<(count == 0 ? (placeholder ? 1 : 0) : count) {
                guard index < lines.count else { throw fail("\(name) has fewer face lines than its count, \(count)") }
                let fields = lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
                guard fields.count >= 4, fields.allSatisfy({ $0?.isFinite == true }) else {
                    throw fail("expected a face of \(name) as numbers: x y w h and its flags or score")
                }
                let numbers = fields.map { $0! }
                if count > 0 {
                    let box = Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
                    guard box.width >= 0, box.height >= 0 else { throw fail("a face of \(name) has a negative size") }
                    let invalid = numbers.count >= 10 && numbers[7] == 1
                    faces.append(ListedFace(box: box, score: numbers.count == 5 ? numbers[4] : 1, ignored: invalid))
                }
                index += 1
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return images
    }

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

// MARK: - Pascal VOC

extension FaceList {
    /// VOC annotations, an XML file per image: its `filename` (in the folder the file is in, relative to
    /// `path`: Annotations/a/b.xml names a/FILENAME), each `object` named face (or any, when none is)
    /// a face, `difficult` ones ignored, as VOC's evaluation does. Detections have no score (1).
    static func loadVOC(_ directory: FilePath, files: [FilePath]) throws(EvaluationInputError) -> FaceList {
        var parsed: [(name: String, objects: [XMLElementNode], file: String)] = []
        for path in files {
            let file = path.description
            let text: String
            do {
                let bytes = try FileDescriptor(opening: path, flags: O_RDONLY).readAll(limit: sizeLimit)
                guard let decoded = String(validating: bytes, as: UTF8.self) else {
                    throw EvaluationInputError(path: file, reason: "not UTF-8 text: give VOC annotations")
                }
                text = decoded.hasPrefix("\u{FEFF}") ? String(decoded.dropFirst()) : decoded
            } catch let error as EvaluationInputError {
                throw error
            } catch {
                throw EvaluationInputError(path: file, reason: "cannot be read: check that it is readable")
            }
            let root: XMLElementNode
            do {
                root = try XMLElementNode.parse(text)
            } catch {
                throw EvaluationInputError(path: file, place: "line \(error.line)", reason: error.reason + ": check that it is VOC XML")
            }
            guard root.name == "annotation", let filename = root.value("filename"), !filename.isEmpty else {
                throw EvaluationInputError(path: file, reason: "needs <annotation> with a <filename>: check that it is VOC XML")
            }
            // The folders below the given one, VOC's own Annotations/ aside.
            var relative = String(decoding: path.bytes.dropFirst(directory.bytes.count), as: UTF8.self).split(separator: "/").dropLast()
            if relative.first == "Annotations" { relative = relative.dropFirst() }
            let folder = relative.joined(separator: "/")
            parsed.append(((folder.isEmpty ? "" : folder + "/") + filename, root.children.filter { $0.name == "object" }, file))
        }
        let anyFace = parsed.contains { $0.objects.contains { $0.value("name")?.lowercased() == "face" } }
        var images: [ListedImage] = []
        for (name, objects, file) in parsed {
            var faces: [ListedFace] = []
            for (index, object) in objects.enumerated() where !anyFace || object.value("name")?.lowercased() == "face" {
                let corners = ["xmin", "ymin", "xmax", "ymax"].map { object.child("bndbox")?.value($0).flatMap(Double.init) }
                guard let x0 = corners[0], let y0 = corners[1], let x1 = corners[2], let y1 = corners[3],
                      [x0, y0, x1, y1].allSatisfy(\.isFinite), x1 >= x0, y1 >= y0 else {
                    throw EvaluationInputError(path: file, place: "object \(index + 1)", reason: "bndbox needs numbers xmin <= xmax, ymin <= ymax")
                }
                let score = try Self.score(object.value("score"), path: file, place: "object \(index + 1)")
                faces.append(ListedFace(box: Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), score: score,
                                        ignored: object.value("difficult") == "1"))
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return FaceList(path: directory.description, format: .voc, images: images, listsEveryImage: true)
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

// MARK: - CVAT and Label Studio

extension FaceList {
    /// CVAT 1.1: an `<image>`'s boxes (with a `score` attribute, 1 without), or a video's tracks,
    /// each keyframe box on frame N of the task's `<source>` (or name) named `SOURCE#N`, as eval names
    /// a video's frames; `outside` boxes end tracks and are no faces. Only boxes labelled face, when any is.
    /// A CVAT task's frames beyond this are refused rather than listed (eleven hours at 25 frames a second).
    static let maximumFrames = 1_000_000

    static func loadCVAT(_ path: String, text: String) throws(EvaluationInputError) -> FaceList {
        let root: XMLElementNode
        do {
            root = try XMLElementNode.parse(text)
        } catch {
            throw EvaluationInputError(path: path, place: "line \(error.line)", reason: error.reason + ": check that it is CVAT XML")
        }
        guard root.name == "annotations" else {
            throw EvaluationInputError(path: path, reason: "an XML file that is not CVAT's (<annotations>): give a CVAT 1.1 file, or a VOC folder")
        }
        // A track's boxes take its label.
        let labels = root.children.flatMap { element in
            element.name == "image" ? element.children.compactMap { $0.attributes["label"] } : element.name == "track" ? [element.attributes["label"] ?? ""] : []
        }
        let anyFace = labels.contains { $0.lowercased() == "face" }
        func face(_ box: XMLElementNode, in place: String) throws(EvaluationInputError) -> ListedFace {
            let corners = ["xtl", "ytl", "xbr", "ybr"].map { box.attributes[$0].flatMap(Double.init) }
            guard let x0 = corners[0], let y0 = corners[1], let x1 = corners[2], let y1 = corners[3],
                  [x0, y0, x1, y1].allSatisfy(\.isFinite), x1 >= x0, y1 >= y0 else {
                throw EvaluationInputError(path: path, place: place, reason: "a box needs numbers xtl <= xbr, ytl <= ybr")
            }
            let score = try Self.score(
                box.children.first { $0.name == "attribute" && $0.attributes["name"] == "score" }?.text, path: path, place: place)
            return ListedFace(box: Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), score: score)
        }
        func counts(_ box: XMLElementNode) -> Bool {
            box.name == "box" && (!anyFace || box.attributes["label"]?.lowercased() == "face")
        }
        var images: [ListedImage] = []
        var frames: [Int: [ListedFace]] = [:]
        for element in root.children {
            if element.name == "image" {
                guard let name = element.attributes["name"] else {
                    throw EvaluationInputError(path: path, place: "image \(images.count + 1)", reason: "has no name")
                }
                var faces: [ListedFace] = []
                for box in element.children where counts(box) { faces.append(try face(box, in: "image \(name)")) }
                images.append(ListedImage(name: name, faces: faces))
            } else if element.name == "track", !anyFace || element.attributes["label"]?.lowercased() == "face" {
                for box in element.children where box.name == "box" && box.attributes["outside"] != "1" {
                    guard let frame = box.attributes["frame"].flatMap({ Int($0) }), (0..<maximumFrames).contains(frame) else {
                        throw EvaluationInputError(
                            path: path, place: "track \(element.attributes["id"] ?? "")",
                            reason: "a box's frame must be a whole number from 0 to \(maximumFrames - 1)")
                    }
                    frames[frame, default: []].append(try face(box, in: "track \(element.attributes["id"] ?? "") frame \(frame)"))
                }
            }
        }
        if !frames.isEmpty || root.children.contains(where: { $0.name == "track" }) {
            let task = root.child("meta")?.child("task")
            let source = root.child("meta")?.value("source") ?? task?.value("source") ?? task?.value("name") ?? path
            let seen = (frames.keys.max() ?? -1) + 1
            let size = task?.value("size").flatMap { Int($0) }.map { min(max($0, seen), maximumFrames) } ?? seen
            // Every frame of the task, those without a face too (frame 0 is named by its source alone).
            images += (0..<size).map { frame in
                ListedImage(name: FrameResult.imageName(source: source, frame: frame, time: 0), faces: frames[frame] ?? [])
            }
        }
        return FaceList(path: path, format: .cvat, images: images, listsEveryImage: true)
    }

    /// Label Studio image tasks: the image named by `data.image` (a local-files URL's path, decoded),
    /// faces from the first annotation's rectangles (a ground truth) or else the first prediction's,
    /// in percent of `original_width` and `original_height`; scores from the result or the prediction.
    static func loadLabelStudio(_ path: String, _ tasks: [JSONValue]) throws(EvaluationInputError) -> FaceList {
        // Only rectangles labelled face, when any is (as VOC's and CVAT's readers take them).
        func labels(_ result: JSONValue) -> [String] {
            (result["value"]?["rectanglelabels"]?.array ?? []).compactMap { $0.string?.lowercased() }
        }
        func resultSets(_ task: JSONValue) -> [JSONValue] {
            (task["annotations"]?.array ?? []) + (task["predictions"]?.array ?? [])
        }
        func results(_ task: JSONValue) -> [JSONValue] {
            (resultSets(task).first?["result"]?.array ?? []).filter { $0.members != nil }
        }
        let anyFace = tasks.contains { results($0).contains { labels($0).contains("face") } }
        var images: [ListedImage] = []
        for (index, entry) in tasks.enumerated() {
            let place = "task \(index + 1)"
            guard entry.members != nil, let data = entry["data"], data.members != nil else {
                throw EvaluationInputError(path: path, place: place, reason: "needs data: check that it is Label Studio's tasks")
            }
            guard var name = data["image"]?.string else {
                throw EvaluationInputError(path: path, place: place, reason: "needs data.image: eval reads image tasks, not video ones")
            }
            if let query = name.range(of: "?d=") { name = String(name[query.upperBound...]).removingPercentEncoding ?? name }
            let chosen = resultSets(entry).first
            let rectangles = results(entry).filter { $0["type"]?.string == "rectanglelabels" }
            var faces: [ListedFace] = []
            for (position, result) in rectangles.enumerated() where !anyFace || labels(result).contains("face") {
                let box = result["value"]
                let numbers = ["x", "y", "width", "height"].map { box?[$0]?.number } + [result["original_width"]?.number, result["original_height"]?.number]
                guard numbers.allSatisfy({ $0?.isFinite == true }), let width = numbers[4], let height = numbers[5], width > 0, height > 0,
                      numbers[2]! >= 0, numbers[3]! >= 0 else {
                    throw EvaluationInputError(
                        path: path, place: "\(place) result \(position + 1)",
                        reason: "needs x, y, width, height, original_width and original_height as numbers, the sizes not negative")
                }
                let score = result["score"]?.number ?? chosen?["score"]?.number ?? 1
                faces.append(ListedFace(
                    box: Rect(x: numbers[0]! * width / 100, y: numbers[1]! * height / 100, width: numbers[2]! * width / 100,
                              height: numbers[3]! * height / 100),
                    score: score))
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return FaceList(path: path, format: .labelStudio, images: images, listsEveryImage: true)
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

    private static func loadCOCO(_ path: String, _ object: JSONValue) throws(EvaluationInputError) -> FaceList {
        guard let images = object["images"]?.array else {
            throw EvaluationInputError(path: path, place: "images", reason: "missing or not a list: check that it is a COCO instances file")
        }
        var names: [Int: String] = [:]
        var order: [Int] = []
        for (index, entry) in images.enumerated() {
            guard let id = integer(entry["id"]), var name = entry["file_name"]?.string else {
                throw EvaluationInputError(path: path, place: "images[\(index)]", reason: "needs an integer id and a file_name")
            }
            // A video's frame, as facecam's COCO output names it, and as its JSON Lines do.
            if let frame = integer(entry["frame_index"]) { name += "#\(frame)" }
            guard names.updateValue(name, forKey: id) == nil else {
                throw EvaluationInputError(path: path, place: "images[\(index)]", reason: "id \(id) is used twice")
            }
            order.append(id)
        }
        // In id order, as pycocotools takes them: detections with equal scores then fall alike.
        order.sort()
        guard let annotations = object["annotations"]?.array else {
            throw EvaluationInputError(path: path, place: "annotations", reason: "missing or not a list: check that it is a COCO instances file")
        }
        let faceCategories = try faceCategories(object["categories"], in: path)
        let faces = try cocoAnnotations(annotations, in: path, key: "annotations", categories: faceCategories)
        if let stray = faces.keys.first(where: { names[$0] == nil }) {
            throw EvaluationInputError(path: path, place: "annotations", reason: "image_id \(stray) is not among the images")
        }
        var list = FaceList(
            path: path, format: .coco, images: order.map { ListedImage(name: names[$0]!, faces: faces[$0] ?? []) },
            listsEveryImage: true)
        list.imageIDs = names
        return list
    }

    /// The ids of a COCO file's face category: all (nil) when it has one category or none, else
    /// those named "face"; a file of several categories without one is refused.
    private static func faceCategories(_ value: JSONValue?, in path: String) throws(EvaluationInputError) -> Set<Int>? {
        let categories = (value?.array ?? []).filter { $0.members != nil }
        guard categories.count > 1 else { return nil }
        let faces = categories.filter { $0["name"]?.string?.lowercased() == "face" }.compactMap { integer($0["id"]) }
        guard !faces.isEmpty else {
            throw EvaluationInputError(path: path, place: "categories", reason: "several categories, none named face: eval scores faces")
        }
        return Set(faces)
    }

    /// COCO annotations by image id: `bbox` [x, y, w, h], `score` (1 when absent), ignored when
    /// `iscrowd` or `ignore` is set; only those of `categories`, when given.
    private static func cocoAnnotations(
        _ entries: [JSONValue], in path: String, key: String, categories: Set<Int>?
    ) throws(EvaluationInputError) -> [Int: [ListedFace]] {
        var faces: [Int: [ListedFace]] = [:]
        for (index, entry) in entries.enumerated() {
            let place = "\(key)[\(index)]"
            guard let image = integer(entry["image_id"]) else {
                throw EvaluationInputError(path: path, place: place, reason: "needs an integer image_id")
            }
            if let categories, let category = integer(entry["category_id"]), !categories.contains(category) { continue }
            guard let box = rect(entry["bbox"]) else {
                throw EvaluationInputError(path: path, place: place, reason: "bbox must be [x, y, width, height], sizes 0 or more")
            }
            let score = entry["score"] == nil ? 1 : entry["score"]?.number
            guard let score, score.isFinite else {
                throw EvaluationInputError(path: path, place: place, reason: "score must be a number")
            }
            let ignored = integer(entry["iscrowd"]) == 1 || integer(entry["ignore"]) == 1
            faces[image, default: []].append(ListedFace(box: box, score: score, ignored: ignored))
        }
        return faces
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

    /// facecam's records: a still image is named by its source, a video's frame by `SOURCE#FRAME`;
    /// faces by their preview boxes. Event records are skipped.
    static func loadJSONLines(_ path: String, text: String) throws(EvaluationInputError) -> FaceList {
        var images: [ListedImage] = []
        for (index, line) in Self.lines(of: text).enumerated() {
            if line.allSatisfy(\.isWhitespace) { continue }
            let place = "line \(index + 1)"
            guard let record = try? JSONValue.parse(line), record.members != nil else {
                throw EvaluationInputError(path: path, place: place, reason: "not a JSON object: check that the file is facecam's JSON Lines")
            }
            if record["event"] != nil { continue }
            guard let source = record["source"]?.string, let faces = record["faces"]?.array else {
                throw EvaluationInputError(path: path, place: place, reason: "needs source and faces, as facecam's records have")
            }
            let frame = integer(record["frame"]) ?? 0
            var listed: [ListedFace] = []
            for (position, entry) in faces.enumerated() {
                // The preview box: with detect's default geometry, the upright image's pixels, as labelling tools show it.
                guard let box = rect(entry["preview"] ?? entry["box"]) else {
                    throw EvaluationInputError(
                        path: path, place: "\(place) face \(position)", reason: "preview or box must be [x, y, width, height]")
                }
                listed.append(ListedFace(box: box, score: entry["score"]?.number ?? 1))
            }
            let name = FrameResult.imageName(source: source, frame: frame, time: record["time"]?.number ?? 0)
            images.append(ListedImage(name: name, faces: listed))
        }
        return FaceList(path: path, format: .jsonl, images: images, listsEveryImage: true)
    }

    private static func integer(_ value: JSONValue?) -> Int? {
        value?.number.flatMap { Int(exactly: $0) }
    }

    private static func rect(_ value: JSONValue?) -> Rect? {
        guard let numbers = value?.array, numbers.count == 4 else { return nil }
        let values = numbers.compactMap(\.number)
        guard values.count == 4, values.allSatisfy(\.isFinite), values[2] >= 0, values[3] >= 0 else { return nil }
        return Rect(x: values[0], y: values[1], width: values[2], height: values[3])
    }
}
