/// A CVAT 1.1 XML document, in the preview's coordinates (the upright image, as CVAT shows it).
///
/// Still images make "CVAT for images": an `<image>` element per image, streamed, each face a
/// `<box>` with its score as a text attribute. A video makes "CVAT for video": one task, each
/// track a `<track>` (with facecam's id) of keyframe boxes, each with its score, ending with an `outside` box on the frame after its last,
/// kept in memory until `closing` (the task's size and frame size come first and are known only then).
struct CVATDocument: DocumentFormat {
    static let traits = FormatTraits(fileExtension: "xml", isWrittenWhole: true, isOneVideo: true)
    private let video: Bool
    /// Boxes may carry the pose and quality (`ExportContext.faceAttributes`), a name and distance
    /// (`identities`) and a cluster (`clusters`), declared as text attributes.
    private let faceAttributes: Bool
    private let identities: Bool
    private let clusters: Bool
    private var imageCount = 0
    /// Video: its tracks, and what the task's meta needs, from its first frame on.
    private var tracks: VideoTracks?

    /// The attributes beside the score that `faceAttributes` declares.
    static let poseAndQuality = ["roll", "yaw", "pitch", "quality"]

    init(context: ExportContext) {
        video = context.video
        faceAttributes = context.faceAttributes
        identities = context.identities
        clusters = context.clusters
    }

    /// The one label, face, with the score (and the pose and quality, the name and distance, the cluster)
    /// as text attributes: mutable in a video, where each of a track's boxes has its own.
    private func label(mutable: Bool) -> String {
        let names = ["score"] + (faceAttributes ? Self.poseAndQuality : []) + (identities ? ["identity", "distance"] : [])
            + (clusters ? ["cluster"] : [])
        return "<labels><label><name>face</name><type>rectangle</type><attributes>"
            + names.map { name in
                "<attribute><name>\(name)</name><mutable>\(mutable ? "True" : "False")</mutable><input_type>text</input_type>"
                    + "<default_value></default_value><values></values></attribute>"
            }.joined()
            + "</attributes></label></labels>"
    }

    var opening: String {
        let start = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<annotations>\n<version>1.1</version>\n"
        return video ? start
            : start + "<meta><task><name>faces found by facecam</name><mode>annotation</mode>\(label(mutable: false))</task></meta>\n"
    }

    mutating func add(_ result: FrameResult) -> String {
        if video {
            if tracks == nil { tracks = VideoTracks(first: result) } else { tracks!.add(result) }
            return ""
        }
        defer { imageCount += 1 }
        var element = "<image id=\"\(imageCount)\" name=\"\(markupEscaped(result.imageName))\" "
            + "width=\"\(result.previewSize.width)\" height=\"\(result.previewSize.height)\">\n"
        for face in result.faces {
            element += "  " + Self.box(face.preview, extra: "label=\"face\" source=\"auto\" occluded=\"0\"", attributes: face.cvatAttributes) + "\n"
        }
        return element + "</image>\n"
    }

    mutating func closing() -> String {
        guard video else { return "</annotations>\n" }
        let size = tracks?.size ?? PixelSize(width: 0, height: 0)
        let lastFrame = tracks?.lastFrame ?? -1
        let source = tracks?.source
        var text = "<meta><task><name>\(markupEscaped(source ?? "video"))</name><size>\(lastFrame + 1)</size>"
            + "<mode>interpolation</mode><overlap>0</overlap><start_frame>0</start_frame><stop_frame>\(max(lastFrame, 0))</stop_frame>"
            + label(mutable: true)
            + "<original_size><width>\(size.width)</width><height>\(size.height)</height></original_size></task>"
            + "<source>\(markupEscaped(source ?? ""))</source></meta>\n"
        for (id, boxes) in tracks?.tracks ?? [] {
            text += "<track id=\"\(id)\" label=\"face\" source=\"auto\">\n"
            for entry in boxes {
                text += "  " + Self.box(entry.box, extra: "frame=\"\(entry.frame)\" outside=\"0\" occluded=\"0\" keyframe=\"1\"", attributes: entry.attributes) + "\n"
            }
            if let last = boxes.last, last.frame < lastFrame {
                text += "  " + Self.box(last.box, extra: "frame=\"\(last.frame + 1)\" outside=\"1\" occluded=\"0\" keyframe=\"1\"", attributes: []) + "\n"
            }
            text += "</track>\n"
        }
        return text + "</annotations>\n"
    }

    /// A `<box>` with CVAT's corners (top left, bottom right) and its attributes' values.
    private static func box(_ rect: Rect, extra: String, attributes: [(name: String, value: String)]) -> String {
        let corners = "xtl=\"\(decimal(rect.x))\" ytl=\"\(decimal(rect.y))\" xbr=\"\(decimal(rect.x + rect.width))\" "
            + "ybr=\"\(decimal(rect.y + rect.height))\" z_order=\"0\""
        guard !attributes.isEmpty else { return "<box \(extra) \(corners)/>" }
        return "<box \(extra) \(corners)>" + attributes.map { "<attribute name=\"\($0.name)\">\($0.value)</attribute>" }.joined() + "</box>"
    }
}

extension Face {
    /// A CVAT box's attribute values, escaped: the score, then the preview's pose and the quality, the name
    /// and distance, and the cluster, when asked for.
    var cvatAttributes: [(name: String, value: String)] {
        (score.map { [("score", decimal($0))] } ?? []) + exportedAttributes.filter { $0.name != "track_id" }.map { attribute in
            switch attribute.value {
            case .number(let text): (attribute.name, text)
            case .text(let text): (attribute.name, markupEscaped(text))
            }
        }
    }
}
