/// A CVAT 1.1 XML document, in the preview's coordinates (the upright image, as CVAT shows it).
///
/// Still images make "CVAT for images": an `<image>` element per image, streamed, each face a
/// `<box>` with its score as a text attribute. A video makes "CVAT for video": one task, each
/// track a `<track>` (with facecam's id) of keyframe boxes, each with its score, ending with an `outside` box on the frame after its last,
/// kept in memory until `closing` (the task's size and frame size come first and are known only then).
struct CVATDocument: ResultDocument {
    private let video: Bool
    private var imageCount = 0
    /// Video: its tracks, and what the task's meta needs, from its first frame on.
    private var tracks: VideoTracks?

    init(video: Bool) {
        self.video = video
    }

    /// The one label, face, with the score as a text attribute: mutable in a video, where each of a
    /// track's boxes has its own.
    private static func label(mutable: Bool) -> String {
        "<labels><label><name>face</name><type>rectangle</type><attributes>"
            + "<attribute><name>score</name><mutable>\(mutable ? "True" : "False")</mutable><input_type>text</input_type>"
            + "<default_value></default_value><values></values></attribute></attributes></label></labels>"
    }

    var opening: String {
        let start = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<annotations>\n<version>1.1</version>\n"
        return video ? start
            : start + "<meta><task><name>faces found by facecam</name><mode>annotation</mode>\(Self.label(mutable: false))</task></meta>\n"
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
            element += "  " + Self.box(face.preview, extra: "label=\"face\" source=\"auto\" occluded=\"0\"", score: face.score) + "\n"
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
            + Self.label(mutable: true)
            + "<original_size><width>\(size.width)</width><height>\(size.height)</height></original_size></task>"
            + "<source>\(markupEscaped(source ?? ""))</source></meta>\n"
        for (id, boxes) in tracks?.tracks ?? [] {
            text += "<track id=\"\(id)\" label=\"face\" source=\"auto\">\n"
            for entry in boxes {
                text += "  " + Self.box(entry.box, extra: "frame=\"\(entry.frame)\" outside=\"0\" occluded=\"0\" keyframe=\"1\"", score: entry.score) + "\n"
            }
            if let last = boxes.last, last.frame < lastFrame {
                text += "  " + Self.box(last.box, extra: "frame=\"\(last.frame + 1)\" outside=\"1\" occluded=\"0\" keyframe=\"1\"", score: nil) + "\n"
            }
            text += "</track>\n"
        }
        return text + "</annotations>\n"
    }

    /// A `<box>` with CVAT's corners (top left, bottom right).
    private static func box(_ rect: Rect, extra: String, score: Double?) -> String {
        let corners = "xtl=\"\(decimal(rect.x))\" ytl=\"\(decimal(rect.y))\" xbr=\"\(decimal(rect.x + rect.width))\" "
            + "ybr=\"\(decimal(rect.y + rect.height))\" z_order=\"0\""
        guard let score else { return "<box \(extra) \(corners)/>" }
        return "<box \(extra) \(corners)><attribute name=\"score\">\(decimal(score))</attribute></box>"
    }
}
