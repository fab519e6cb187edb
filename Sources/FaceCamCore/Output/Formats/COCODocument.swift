import Foundation

/// A COCO instances document written as frames come: its images stream out, one line each,
/// and its annotations, which follow them in the document, wait in memory until `closing`.
///
/// Boxes and landmarks are the preview's: with the default geometry, the upright image's pixels,
/// which is what labelling tools show (they apply EXIF orientation). `file_name` is the source
/// (relative to the image root, `ResultWriter` sees to that); a video's frames add `frame_index` and `time`. Landmarks are COCO keypoints (x, y, 2)
/// in YuNet's order; a tracked face's id is `attributes.track_id`, its pose (the preview's) and
/// quality `attributes.roll`, `yaw`, `pitch` and `quality`.
struct COCODocument: DocumentFormat {
    static let traits = FormatTraits(
        summary: "a COCO instances JSON",
        fileExtension: "json", isWrittenWhole: true, isOneVideo: false, isVideoOnly: false, namesImages: true,
        holds: [.poseAndQuality, .identity, .cluster])
    private var images = 0
    private var annotations: [String] = []

    init(context: ExportContext) {}

    static let keypoints = ["right_eye", "left_eye", "nose", "mouth_right", "mouth_left"]

    let opening = {
        let info: JSONOutput = .members(["description": "faces found by facecam"])
        let category: JSONOutput = .members([
            "id": 1, "name": "face", "supercategory": "face", "keypoints": .array(keypoints.map(JSONOutput.string)), "skeleton": .array([]),
        ])
        // The document's members, its images and annotations after them, one entry a line.
        return "{\"info\":\(info.text),\"licenses\":[],\"categories\":[\(category.text)],\n\"images\":["
    }()

    /// The frame's image entry; its faces are kept for `closing`.
    mutating func add(_ result: FrameResult) -> String {
        images += 1
        let later = FrameResult.isLaterFrame(frame: result.frame, time: result.time)
        let image: JSONOutput = .members([
            "id": .integer(images), "file_name": .string(result.source),
            "width": .integer(result.previewSize.width), "height": .integer(result.previewSize.height),
            "frame_index": later ? .integer(result.frame) : nil, "time": later ? .decimal(result.time) : nil,
        ])
        for face in result.faces {
            let box = face.preview
            let attributes = face.exportedAttributes.map { attribute -> (key: String, value: JSONOutput) in
                switch attribute.value {
                case .number(let text): (attribute.name, .number(text))
                case .text(let text): (attribute.name, .string(text))
                }
            }
            let annotation: JSONOutput = .members([
                "id": .integer(annotations.count + 1), "image_id": .integer(images), "category_id": 1,
                "bbox": .rect(box),
                "area": .decimal(box.area), "segmentation": .array([]), "iscrowd": 0,
                "score": face.score.map(JSONOutput.decimal),
                "keypoints": face.previewLandmarks.map { .array($0.points.flatMap { [.decimal($0.x), .decimal($0.y), 2] }) },
                "num_keypoints": face.previewLandmarks.map { .integer($0.points.count) },
                "attributes": attributes.isEmpty ? nil : .object(attributes),
            ])
            annotations.append(annotation.text)
        }
        return (images > 1 ? ",\n" : "\n") + image.text
    }

    /// The end of the document: the annotations, one line each.
    func closing() -> String {
        "],\n\"annotations\":[" + (annotations.isEmpty ? "" : "\n" + annotations.joined(separator: ",\n")) + "]}\n"
    }
}

/// A dataset attribute's value: a number, as decimal text, or a text.
enum ExportedValue {
    case number(String)
    case text(String)
}

extension Face {
    /// What the dataset formats record of a face beside its box: its track id, then the preview's pose
    /// and the quality, the name (empty for someone unknown) and distance, and the cluster, when they
    /// were asked for.
    var exportedAttributes: [(name: String, value: ExportedValue)] {
        var attributes: [(String, ExportedValue)] = id.map { [("track_id", .number(String($0)))] } ?? []
        if let pose = previewPose {
            attributes += [("roll", pose.roll), ("yaw", pose.yaw), ("pitch", pose.pitch)].map { ($0.0, .number(angleText($0.1))) }
        }
        if let quality { attributes.append(("quality", .number(qualityText(quality)))) }
        if let identity {
            attributes.append(("identity", .text(identity.name ?? "")))
            if let distance = identity.distance { attributes.append(("distance", .number(distanceText(distance)))) }
        }
        if let cluster { attributes.append(("cluster", .number(String(cluster)))) }
        return attributes
    }
}

// MARK: - Reading (eval)

extension FaceList {
    static func loadCOCO(_ path: String, _ object: JSONValue) throws(EvaluationInputError) -> FaceList {
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
    static func faceCategories(_ value: JSONValue?, in path: String) throws(EvaluationInputError) -> Set<Int>? {
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
    static func cocoAnnotations(
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
}
