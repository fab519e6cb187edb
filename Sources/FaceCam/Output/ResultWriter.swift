#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// How results are printed.
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
    /// A folder: a label file per image and `data.yaml` (`DatasetFolder`).
    case yolo
    /// A folder: Pascal VOC's XML per image and its list of images (`DatasetFolder`).
    case voc
    /// A CVAT 1.1 XML document: images with boxes, or a video's tracks (`CVATDocument`).
    case cvat
    /// A JSON array of Label Studio tasks with predictions (`LabelStudioDocument`).
    case labelstudio

    /// Always a folder of files (`--output-dir`); `wider` is one in a folder, one file elsewhere.
    public var isFolder: Bool { self == .yolo || self == .voc }

    /// A document whose end is written when the run ends.
    public var isDocument: Bool { self == .coco || self == .cvat || self == .labelstudio }

    /// A dataset file, which must not pass for a whole one unless the run finished: a file of it is
    /// written under a partial name and renamed only then.
    var isWrittenWhole: Bool { isDocument || self == .wider || self == .mot }

    /// Its entries are faces or images: there is no place for track events.
    public var hasEvents: Bool { self == .jsonl || self == .text }

    /// The extension of a results file in this format (`--output-dir`).
    public var fileExtension: String {
        switch self {
        case .jsonl: "jsonl"
        case .csv: "csv"
        case .text: "txt"
        case .coco, .labelstudio: "json"
        case .wider, .mot, .yolo: "txt"
        case .voc, .cvat: "xml"
        }
    }

    /// The first line of the output, if the format has one.
    public var header: String? {
        switch self {
        case .csv:
            "source,frame,time,face,box_x,box_y,box_width,box_height,preview_x,preview_y,preview_width,preview_height,id,"
                + "score,right_eye_x,right_eye_y,left_eye_x,left_eye_y,nose_x,nose_y,"
                + "mouth_right_x,mouth_right_y,mouth_left_x,mouth_left_y,roll,yaw,pitch,preview_roll,preview_yaw,preview_pitch,quality,"
                + "identity,distance\n"
        case .jsonl, .text, .wider, .mot, .coco, .yolo, .voc, .cvat, .labelstudio:
            nil
        }
    }

    /// The text for one frame (possibly empty), ending in a newline when not empty; documents and
    /// folders are written by the writer's `ResultDocument` or `DatasetFolder`.
    public func render(_ result: FrameResult) -> String {
        switch self {
        case .jsonl: renderJSON(result)
        case .csv: renderCSV(result)
        case .text: renderText(result)
        case .wider: renderWider(result)
        case .mot: renderMOT(result)
        case .coco, .yolo, .voc, .cvat, .labelstudio: preconditionFailure("\(rawValue) is written by ResultWriter's document or folder")
        }
    }

    /// The text for a track event, ending in a newline; formats without a place for events
    /// (their entries are faces or images) give "".
    public func render(_ event: TrackEvent) -> String {
        switch self {
        case .jsonl:
            // A track's span: a zone's leave is no track's end.
            let span = event.kind == .leave && event.zone == nil
                ? ",\"first_frame\":\(event.firstFrame),\"first_time\":\(decimal(event.firstTime)),"
                    + "\"last_frame\":\(event.lastFrame),\"last_time\":\(decimal(event.lastTime))"
                : ""
            return "{\"event\":\"\(event.kind.rawValue)\"" + (event.zone.map { ",\"zone\":\(jsonString($0))" } ?? "")
                + ",\"id\":\(event.id),\"source\":\(jsonString(event.source)),"
                + "\"frame\":\(event.frame),\"time\":\(decimal(event.time))\(span),\"preview\":[\(numbers(event.preview))]"
                + (event.score.map { ",\"score\":\(decimal($0))" } ?? "") + (event.identity.map(identityJSON) ?? "") + "}\n"
        case .csv, .coco, .wider, .mot, .yolo, .voc, .cvat, .labelstudio:
            return ""
        case .text:
            let what = switch (event.kind, event.zone) {
            case (.enter, nil): "id \(event.id) entered"
            case (.leave, nil): "id \(event.id) left (seen from frame \(event.firstFrame) to \(event.lastFrame))"
            case (.enter, let zone?): "id \(event.id) entered zone \(zone)"
            case (.leave, let zone?): "id \(event.id) left zone \(zone)"
            case (.name, _): "id \(event.id) renamed"
            }
            return "\(event.source) frame \(event.frame) at \(decimal(event.time)) s: \(what)" + (event.identity.map(identityText) ?? "") + "\n"
        }
    }

    /// The text for a track's best shot, ending in a newline; "" where events have no place.
    public func render(_ shot: BestShot) -> String {
        switch self {
        case .jsonl:
            return "{\"event\":\"best_shot\",\"id\":\(shot.id),\"source\":\(jsonString(shot.source)),\"frame\":\(shot.frame),"
                + "\"time\":\(decimal(shot.time)),\"quality\":\(qualityText(shot.quality)),\"file\":\(jsonString(shot.path))}\n"
        case .text:
            return "\(shot.source) frame \(shot.frame) at \(decimal(shot.time)) s: id \(shot.id)'s best shot, quality "
                + String(format: "%.2f", shot.quality) + ", in \(shot.path)\n"
        case .csv, .coco, .wider, .mot, .yolo, .voc, .cvat, .labelstudio:
            return ""
        }
    }

    private func renderJSON(_ r: FrameResult) -> String {
        let faces = r.faces.map { face in
            "{" + (face.id.map { "\"id\":\($0)," } ?? "")
                + "\"box\":[\(face.box.x),\(face.box.y),\(face.box.width),\(face.box.height)],"
                + "\"preview\":[\(numbers(face.preview))]"
                + (face.score.map { ",\"score\":\(decimal($0))" } ?? "")
                + (face.landmarks.map { ",\"landmarks\":\(pairs($0))" } ?? "")
                + (face.previewLandmarks.map { ",\"preview_landmarks\":\(pairs($0))" } ?? "")
                + (face.pose.map { ",\"pose\":\(angles($0))" } ?? "")
                + (face.previewPose.map { ",\"preview_pose\":\(angles($0))" } ?? "")
                + (face.quality.map { ",\"quality\":\(qualityText($0))" } ?? "")
                + (face.zones.map { ",\"zones\":[" + $0.map(jsonString).joined(separator: ",") + "]" } ?? "")
                + (face.identity.map(identityJSON) ?? "") + descriptionJSON(face) + "}"
        }
        return "{\"source\":\(jsonString(r.source)),\"frame\":\(r.frame),\"time\":\(decimal(r.time)),"
            + (r.sequence.map { "\"sequence\":\($0)," } ?? "")
            + (r.orientation.map { "\"orientation\":\($0.rawValue)," } ?? "")
            + "\"size\":[\(r.size.width),\(r.size.height)],"
            + "\"preview_size\":[\(r.previewSize.width),\(r.previewSize.height)],"
            + "\"faces\":[\(faces.joined(separator: ","))]}\n"
    }

    private func renderCSV(_ r: FrameResult) -> String {
        let prefix = "\(csvField(r.source)),\(r.frame),\(decimal(r.time))"
        return r.faces.enumerated().map { index, face in
            let b = face.box
            let p = face.preview
            let id = face.id.map(String.init) ?? ""
            let score = face.score.map(decimal) ?? ""
            // Ten coordinates, or ten empty fields for a cascade's face.
            let landmarks: [String] = face.landmarks?.points.flatMap { [decimal($0.x), decimal($0.y)] }
                ?? Array(repeating: "", count: 10)
            // Roll, yaw and pitch in the buffer, then in the preview; empty without --pose.
            let pose: [String] = [face.pose, face.previewPose].flatMap { pose in
                pose.map { [$0.roll, $0.yaw, $0.pitch].map(angleText) } ?? ["", "", ""]
            }
            let fields: [String] = [prefix, String(index), String(b.x), String(b.y), String(b.width), String(b.height),
                                    decimal(p.x), decimal(p.y), decimal(p.width), decimal(p.height), id, score]
            // With --recognize: the name (empty for a stranger) and the distance; both empty without.
            let identity = [face.identity?.name.map(csvField) ?? "", face.identity?.distance.map(distanceText) ?? ""]
            return (fields + landmarks + pose + [face.quality.map(qualityText) ?? ""] + identity).joined(separator: ",") + "\n"
        }.joined()
    }

    /// The preview's boxes, then WIDER's six attributes (blur, expression, illumination, invalid,
    /// occlusion, pose), which a detector does not know: all 0. An image without faces has one line of
    /// zeros. A video's frames are images of their own, `SOURCE#FRAME`, as eval names them.
    private func renderWider(_ r: FrameResult) -> String {
        let lines = r.faces.map { numbers($0.preview).replacingOccurrences(of: ",", with: " ") + " 0 0 0 0 0 0" }
        return "\(r.imageName)\n\(r.faces.count)\n" + (lines.isEmpty ? ["0 0 0 0 0 0 0 0 0 0"] : lines).joined(separator: "\n") + "\n"
    }

    /// frame (from 1), track id (-1 untracked), the preview's box, score (1 for Haar), then -1 for
    /// MOTChallenge's 3-D position, which a detector does not know.
    private func renderMOT(_ r: FrameResult) -> String {
        r.faces.map { face in
            "\(r.frame + 1),\(face.id ?? -1),\(numbers(face.preview)),\(decimal(face.score ?? 1)),-1,-1,-1\n"
        }.joined()
    }

    private func renderText(_ r: FrameResult) -> String {
        let place = r.time == 0 && r.frame == 0 ? r.source : "\(r.source) frame \(r.frame) at \(decimal(r.time)) s"
        let count = r.faces.count == 1 ? "1 face" : "\(r.faces.count) faces"
        let turned = r.orientation.flatMap { $0 == .up ? nil : " (turned upright: orientation \($0.rawValue), \($0.name))" } ?? ""
        var text = "\(place): \(r.size)\(turned), \(count)\n"
        for (index, face) in r.faces.enumerated() {
            let b = face.box
            let p = face.preview
            text += "  face \(index + 1)" + (face.id.map { " (id \($0))" } ?? "")
                + (face.score.map { String(format: ", score %.2f", $0) } ?? "")
                + ": box \(b.width)x\(b.height) at \(b.x),\(b.y); "
                + "preview \(decimal(p.width))x\(decimal(p.height)) at \(decimal(p.x)),\(decimal(p.y))"
                + (face.previewPose.map { pose in
                    let (roll, yaw, pitch) = (pose.roll, pose.yaw, pose.pitch)
                    return (face.quality.map { String(format: "; quality %.2f", $0) } ?? "")
                        + "; as shown, roll \(decimal(roll.rounded()))°, yaw \(decimal(yaw.rounded()))°, pitch \(decimal(pitch.rounded()))°"
                } ?? "")
                + (face.zones.map { $0.isEmpty ? "; in no zone" : "; in " + $0.joined(separator: ", ") } ?? "")
                + (face.identity.map(identityText) ?? "")
                + "\n"
        }
        return text
    }

    /// A face's ,"descriptor":[...] (each number as the shortest decimal that reads back as the same Float) and
    /// ,"cluster":N, each when it has one.
    private func descriptionJSON(_ face: Face) -> String {
        let descriptor = face.descriptor.map { ",\"descriptor\":[" + $0.map { "\($0)" }.joined(separator: ",") + "]" } ?? ""
        return descriptor + (face.cluster.map { ",\"cluster\":\($0)" } ?? "")
    }

    /// ,"identity":NAME|null,"distance":D|null, the distance to three decimals.
    private func identityJSON(_ identity: FaceIdentity) -> String {
        let name = identity.name.map(jsonString) ?? "null"
        let distance = identity.distance.map(distanceText) ?? "null"
        return ",\"identity\":\(name),\"distance\":\(distance)"
    }

    /// "; NAME (distance D)" or "; unknown (distance D)".
    private func identityText(_ identity: FaceIdentity) -> String {
        "; " + (identity.name ?? "unknown") + (identity.distance.map { String(format: " (distance %.2f)", $0) } ?? "")
    }

    private func numbers(_ r: Rect) -> String {
        [r.x, r.y, r.width, r.height].map(decimal).joined(separator: ",")
    }

    /// {"roll":R,"yaw":Y,"pitch":P} in degrees.
    private func angles(_ pose: FacePose) -> String {
        "{\"roll\":\(angleText(pose.roll)),\"yaw\":\(angleText(pose.yaw)),\"pitch\":\(angleText(pose.pitch))}"
    }

    /// [[x,y],...] in YuNet's order.
    private func pairs(_ landmarks: FaceLandmarks) -> String {
        "[" + landmarks.points.map { "[\(decimal($0.x)),\(decimal($0.y))]" }.joined(separator: ",") + "]"
    }
}

/// A descriptor distance to three decimals.
func distanceText(_ distance: Double) -> String {
    decimal((distance * 1000).rounded() / 1000)
}

/// A quality to three decimals.
func qualityText(_ quality: Double) -> String {
    decimal((quality * 1000).rounded() / 1000)
}

/// An angle in degrees to a hundredth, finer than any estimate of it.
func angleText(_ degrees: Double) -> String {
    decimal((degrees * 100).rounded() / 100)
}

/// A JSON string literal for `text`.
public func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        // Controls, and what YAML (data.yaml) and line-splitting readers take for a line break or refuse.
        case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || [0x2028, 0x2029, 0xFFFE, 0xFFFF].contains(scalar.value):
            out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Writes results to standard output, a file or a dataset folder, flushing after every frame
/// so that a crash or Ctrl-C loses nothing already processed.
public final class ResultWriter {
    public let format: ResultFormat
    private let destination: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// The file written, when it is one that `finish` gives its finished name.
    private let partial: PartialFile?
    /// A document's state (COCO's annotations so far, CVAT's tracks).
    private var document: (any ResultDocument)?
    /// The folder of a folder format, which takes the frames instead of the descriptor.
    private let folder: DatasetFolder?
    /// Finished, kept or discarded: nothing more is written.
    private var settled = false
    private let context: ExportContext

    /// `path` nil writes to standard output; a path is created or truncated, but a dataset file (a
    /// document, WIDER, MOT), which is only whole once finished, is written beside a regular file (or a
    /// new one) and renamed by `finish`; a device or pipe (/dev/stdout) is written directly. A folder format (and `wider`
    /// given `folder`) writes the folder `path`, which must be given.
    public convenience init(format: ResultFormat, path: String?, folder: Bool = false, context: ExportContext = ExportContext())
        throws(SystemError)
    {
        precondition(path != nil || !(format.isFolder || folder), "a folder format needs the folder's path")
        let kind = path.flatMap { try? fileKind($0) }
        if let path, format.isFolder || folder {
            try self.init(format: format, folder: DatasetFolder(path: path, format: format, context: context), context: context)
        } else if let path, kind == .directory {
            throw SystemError(call: "open", path: path, errno: EISDIR)
        } else if let path, format.isWrittenWhole, kind != .other {
            try self.init(format: format, partial: PartialFile(for: path), context: context)
        } else if let path {
            let descriptor = try blockingSyscall("open", path: path) {
                open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            }
            try self.init(format: format, descriptor: descriptor, destination: path, owned: true, partial: nil, context: context)
        } else {
            try self.init(
                format: format, descriptor: STDOUT_FILENO, destination: "standard output", owned: false, partial: nil,
                context: context)
        }
    }

    /// Writes into `partial`, which `finish` gives its finished name; removed if never finished.
    convenience init(format: ResultFormat, partial: PartialFile, context: ExportContext) throws(SystemError) {
        try self.init(
            format: format, descriptor: partial.descriptor, destination: partial.path, owned: false, partial: partial,
            context: context)
    }

    private convenience init(format: ResultFormat, folder: DatasetFolder, context: ExportContext) throws(SystemError) {
        try self.init(format: format, descriptor: -1, destination: folder.path, owned: false, partial: nil, folder: folder, context: context)
    }

    /// Writes the format's opening (a header, a document's start) to `descriptor`, which it
    /// closes at the end when `owned`.
    private init(
        format: ResultFormat, descriptor: Int32, destination: String, owned: Bool, partial: PartialFile?,
        folder: DatasetFolder? = nil, context: ExportContext
    ) throws(SystemError) {
        self.format = format
        self.descriptor = descriptor
        self.destination = destination
        ownsDescriptor = owned
        self.partial = partial
        self.folder = folder
        self.context = context
        if folder == nil {
            switch format {
            case .coco: document = COCODocument()
            case .cvat:
                document = CVATDocument(
                    video: context.video, faceAttributes: context.faceAttributes, identities: context.identities, clusters: context.clusters)
            case .labelstudio: document = LabelStudioDocument(context: context)
            default: break
            }
        }
        if let header = format.header ?? document?.opening { try emit(header) }
    }

    /// Ends a document (and writes a folder's index files), and gives a file opened on a
    /// `PartialFile` its finished name, once durable; once only (a result directory's writer is
    /// finished before the run's end finishes it again).
    public func finish() throws(SystemError) {
        guard !settled else { return }
        settled = true
        if document != nil { try emit(document!.closing()) }
        try folder?.finish()
        try partial?.commit()
    }

    /// A run that stops early: a document is ended, so that it holds the frames done, but a
    /// file keeps its partial name, so that it does not pass for a finished run's. Returns that
    /// name; nil when there is none. A folder keeps the files written, without its index files.
    public func keepUnfinished() throws(SystemError) -> String? {
        guard !settled, document != nil || partial != nil else { return nil }
        settled = true
        if document != nil { try emit(document!.closing()) }
        guard let partial else { return nil }
        try partial.keep()
        return partial.path
    }

    /// Removes a file opened on a `PartialFile`.
    func discard() {
        settled = true
        partial?.discard()
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Writes the frame's results; returns a warning for the user (a dataset item that had to be renamed), if any.
    @discardableResult
    public func write(_ result: FrameResult) throws(SystemError) -> String? {
        if let folder { return try folder.write(result) }
        var named = result
        named.source = context.name(of: result.source)
        if document != nil {
            try emit(document!.add(named))
        } else {
            try emit(format.render(named))
        }
        return nil
    }

    public func write(_ event: TrackEvent) throws(SystemError) {
        guard folder == nil else { return }
        let text = format.render(event)
        if !text.isEmpty { try emit(text) }
    }

    public func write(_ shot: BestShot) throws(SystemError) {
        guard folder == nil else { return }
        var named = shot
        named.source = context.name(of: shot.source)
        let text = format.render(named)
        if !text.isEmpty { try emit(text) }
    }

    private func emit(_ text: String) throws(SystemError) {
        guard !text.isEmpty else { return }
        try writeAll(Array(text.utf8), to: descriptor, path: destination)
    }
}
