/// A COCO instances document written as frames come: its images stream out, one line each,
/// and its annotations, which follow them in the document, wait in memory until `closing`.
///
/// Boxes and landmarks are the preview's: with the default geometry, the upright image's pixels,
/// which is what labelling tools show (they apply EXIF orientation). `file_name` is the source
/// (relative to the image root, `ResultWriter` sees to that); a video's frames add `frame_index` and `time`. Landmarks are COCO keypoints (x, y, 2)
/// in YuNet's order; a tracked face's id is `attributes.track_id`, its pose (the preview's) and
/// quality `attributes.roll`, `yaw`, `pitch` and `quality`.
struct COCODocument: DocumentFormat {
    static let traits = FormatTraits(fileExtension: "json", isWrittenWhole: true)
    private var images = 0
    private var annotations: [String] = []

    init(context: ExportContext) {}

    static let keypoints = ["right_eye", "left_eye", "nose", "mouth_right", "mouth_left"]

    let opening = "{\"info\":{\"description\":\"faces found by facecam\"},\"licenses\":[],"
        + "\"categories\":[{\"id\":1,\"name\":\"face\",\"supercategory\":\"face\","
        + "\"keypoints\":[\(keypoints.map(jsonString).joined(separator: ","))],\"skeleton\":[]}],\n\"images\":["

    /// The frame's image entry; its faces are kept for `closing`.
    mutating func add(_ result: FrameResult) -> String {
        images += 1
        var image = "{\"id\":\(images),\"file_name\":\(jsonString(result.source)),"
            + "\"width\":\(result.previewSize.width),\"height\":\(result.previewSize.height)"
        if FrameResult.isLaterFrame(frame: result.frame, time: result.time) {
            image += ",\"frame_index\":\(result.frame),\"time\":\(decimal(result.time))"
        }
        for face in result.faces {
            let box = face.preview
            var annotation = "{\"id\":\(annotations.count + 1),\"image_id\":\(images),\"category_id\":1,"
                + "\"bbox\":[\([box.x, box.y, box.width, box.height].map(decimal).joined(separator: ","))],"
                + "\"area\":\(decimal(box.area)),\"segmentation\":[],\"iscrowd\":0"
            if let score = face.score { annotation += ",\"score\":\(decimal(score))" }
            if let landmarks = face.previewLandmarks {
                let values = landmarks.points.flatMap { [decimal($0.x), decimal($0.y), "2"] }
                annotation += ",\"keypoints\":[\(values.joined(separator: ","))],\"num_keypoints\":\(landmarks.points.count)"
            }
            let attributes = face.exportedAttributes.map { attribute in
                let value = switch attribute.value {
                case .number(let text): text
                case .text(let text): jsonString(text)
                }
                return "\(jsonString(attribute.name)):\(value)"
            }
            if !attributes.isEmpty { annotation += ",\"attributes\":{\(attributes.joined(separator: ","))}" }
            annotations.append(annotation + "}")
        }
        return (images > 1 ? ",\n" : "\n") + image + "}"
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
