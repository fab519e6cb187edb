import Foundation

/// A CVAT 1.1 XML document, in the preview's coordinates (the upright image, as CVAT shows it).
///
/// Still images make "CVAT for images": an `<image>` element per image, streamed, each face a
/// `<box>` with its score as a text attribute. A video makes "CVAT for video": one task, each
/// track a `<track>` (with facecam's id) of keyframe boxes, each with its score, ending with an `outside` box on the frame after its last,
/// kept in memory until `closing` (the task's size and frame size come first and are known only then).
struct CVATDocument: DocumentFormat {
    static let traits = FormatTraits(
        summary: "CVAT 1.1 XML",
        fileExtension: "xml", isWrittenWhole: true, isOneVideo: true, isVideoOnly: false, namesImages: true,
        holds: [.poseAndQuality, .identity, .cluster])
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

// MARK: - Reading (eval)

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
}
