import Foundation

/// Pascal VOC: `Annotations/ITEM.xml`, the list of items `ImageSets/Main/train.txt` and `labelmap.txt`.
struct VOCFolder: FolderFormat {
    static let traits = FormatTraits(
        summary: "a folder of Pascal VOC XML files",
        fileExtension: "xml", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: true,
        holds: [.poseAndQuality])
    static let indexFiles = ["ImageSets/Main/train.txt", "labelmap.txt"]
    private let context: ExportContext

    init(context: ExportContext) {
        self.context = context
    }

    func item(for result: FrameResult, source: String, frame: String) -> String {
        DatasetFolder.imageItem(source: source, frame: frame, context: context)
    }

    /// VOC's corners are the box's inside the image, unrounded (VOC's own files hold whole pixels,
    /// from 1); a box cut by the image's edge is `truncated`. The file named is the image's own,
    /// which the labelling tool shows; a video's frames are named as the item.
    func file(for result: FrameResult, item: String) -> (path: String, text: String) {
        let file = context.video ? lastComponent(item) + ".jpg" : lastComponent(context.name(of: result.source))
        var xml = "<annotation>\n  <folder></folder>\n  <filename>\(markupEscaped(file))</filename>\n"
            + "  <source><database>\(markupEscaped(context.model))</database></source>\n"
            + "  <size><width>\(result.previewSize.width)</width><height>\(result.previewSize.height)</height><depth>3</depth></size>\n"
            + "  <segmented>0</segmented>\n"
        for face in result.faces {
            guard let b = face.preview.clipped(to: result.previewSize) else { continue }
            let truncated = b != face.preview ? 1 : 0
            xml += "  <object><name>face</name><pose>\(face.vocPose)</pose><truncated>\(truncated)</truncated><difficult>0</difficult>"
                + "<bndbox><xmin>\(decimal(b.x))</xmin><ymin>\(decimal(b.y))</ymin>"
                + "<xmax>\(decimal(b.x + b.width))</xmax><ymax>\(decimal(b.y + b.height))</ymax></bndbox></object>\n"
        }
        return ("Annotations/\(item).xml", xml + "</annotation>\n")
    }

    /// The list of items, and the label list of Datumaro and CVAT (VOC's own tools know only its twenty classes).
    func index(items: [String], folder: String) -> [(path: String, text: String)] {
        [(Self.indexFiles[0], items.map { $0 + "\n" }.joined()), (Self.indexFiles[1], "# label:color_rgb:parts:actions\nface:::\n")]
    }
}


extension Face {
    /// VOC's viewpoint from the preview's yaw (`--pose`): Frontal within 30 degrees of the camera,
    /// else Left or Right, the way the face looks as the picture shows it; Unspecified without a pose.
    var vocPose: String {
        guard let yaw = previewPose?.yaw else { return "Unspecified" }
        return abs(yaw) < 30 ? "Frontal" : yaw > 0 ? "Right" : "Left"
    }
}

// MARK: - Reading (eval)

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
