import Foundation

/// The formats that are a folder with a file per image, written to `--output-dir`, in the preview's
/// coordinates (the upright image, as labelling tools show it):
/// - YOLO: `labels/train/ITEM.txt`, a line per face (class 0, then centre x, centre y, width and height
///   as fractions of the image, then, with landmarks, YOLO-pose keypoints x y 2), and `data.yaml`.
/// - Pascal VOC: `Annotations/ITEM.xml`, the list of items `ImageSets/Main/train.txt` and `labelmap.txt`.
/// - WIDER FACE detection results: `EVENT/NAME.txt` (the image's folder, its name), the image's name,
///   the number of faces, and `x y w h score` a face, as WIDER's evaluation reads them.
///
/// ITEM is the image's path relative to the image root without its extension, or its name without the
/// extension when there is no root; a video's frames are `STEM_FRAME` (six digits, from 0). A name
/// already given gets `-2`, `-3`, ... Each file is written as a `PartialFile` and renamed whole; the index
/// files (`data.yaml`, `train.txt`) come last, at `finish`, so a folder without them is a run that did not end.
final class DatasetFolder {
    let path: String
    let format: ResultFormat
    private let context: ExportContext
    private var names = FileNames(keepingFolders: true)
    /// The items written, in order, for the index.
    private var items: [String] = []
    /// Some face had landmarks: YOLO's `data.yaml` declares the keypoints.
    private var landmarks = false
    /// The inputs whose names clashed, already warned about.
    private var renamedSources: Set<String> = []

    /// Creates the folder; an earlier run's index files there are removed, so that this run's folder
    /// only looks finished once it is.
    init(path: String, format: ResultFormat, context: ExportContext) throws(SystemError) {
        self.path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.format = format
        self.context = context
        try makeDirectories(self.path)
        for index in Self.indexFiles(format) where unlink(self.path + "/" + index) != 0 && errno != ENOENT {
            throw SystemError(call: "unlink", path: self.path + "/" + index, errno: errno)
        }
    }

    /// The files `finish` writes.
    static func indexFiles(_ format: ResultFormat) -> [String] {
        switch format {
        case .yolo: ["data.yaml"]
        case .voc: ["ImageSets/Main/train.txt", "labelmap.txt"]
        default: []
        }
    }

    /// Writes the frame's file; returns a warning when its name was taken by another image's.
    func write(_ result: FrameResult) throws(SystemError) -> String? {
        let source = context.name(of: result.source)
        let file = lastComponent(source)
        let stem = Self.removingExtension(file)
        let frame = context.video ? String(format: "_%06d", result.frame) : ""
        var warning: String?
        /// `name` made unique, saying so when it had to change.
        func claim(_ name: String) -> String {
            let item = names.claim(name)
            // Once per input: a video's frames would all say it.
            if item != name, renamedSources.insert(result.source).inserted {
                warning = "warning: \(result.imageName): its file is \(item), as another image's took \(name), so it no longer "
                    + "matches the image's name: rename one of them (images in different folders: give --image-root)"
            }
            return item
        }
        switch format {
        case .yolo, .voc:
            let item = claim(safeItem(Self.removingExtension(context.imageRoot == nil ? file : source) + frame))
            items.append(item)
            if format == .yolo {
                try save(render(yolo: result), as: "labels/train/\(item).txt")
            } else {
                // The image's own name, which the labelling tool shows; a video's frames are named as the item.
                let imageFile = context.video ? lastComponent(item) + ".jpg" : file
                try save(render(voc: result, file: imageFile), as: "Annotations/\(item).xml")
            }
        case .wider:
            let event = context.video ? stem : lastComponent(directoryOf(ImageRoot.absolute(result.source)))
            let item = claim(safeItem("\(event)/\(stem)\(frame)"))
            try save(render(wider: result, name: lastComponent(result.imageName)), as: "\(item).txt")
        default:
            preconditionFailure("\(format.rawValue) is not a folder format")
        }
        return warning
    }

    /// `name` with each path component made a plain file name: no empty, "." or ".." component
    /// (which would leave the folder), no control character.
    private func safeItem(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).map { part in
            let cleaned = String(part.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "_" : Character($0) })
            return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "_" + cleaned : cleaned
        }.joined(separator: "/")
    }

    /// Writes the index files, once every image's file is renamed.
    func finish() throws(SystemError) {
        switch format {
        case .yolo:
            var yaml = "# Faces found by \(context.model): labels/train has a file per image; put the images in images/train\n"
                + "# under the same names.\npath: \(jsonString(ImageRoot.absolute(path)))\ntrain: images/train\nval: images/train\nnames:\n  0: face\n"
            if landmarks { yaml += "kpt_shape: [5, 3]\nflip_idx: [1, 0, 2, 4, 3]\n" }
            try save(yaml, as: "data.yaml")
        case .voc:
            try save(items.map { $0 + "\n" }.joined(), as: "ImageSets/Main/train.txt")
            // The label list of Datumaro and CVAT (VOC's own tools know only its twenty classes).
            try save("# label:color_rgb:parts:actions\nface:::\n", as: "labelmap.txt")
        default:
            break
        }
    }

    private func save(_ text: String, as name: String) throws(SystemError) {
        let destination = path + "/" + name
        try makeFolders(directoryOf(name))
        let file = try PartialFile(for: destination)
        try writeAll(Array(text.utf8), to: file.descriptor, path: file.path)
        try file.commit()
    }

    /// Creates the folders of `relative` inside the dataset folder, refusing one that is a link (which
    /// someone sharing the folder could plant to have files written elsewhere).
    private func makeFolders(_ relative: String) throws(SystemError) {
        guard relative != "." else { return }
        var folder = path
        for part in relative.split(separator: "/") {
            folder += "/" + part
            if mkdir(folder, 0o755) != 0, errno != EEXIST { throw SystemError(call: "mkdir", path: folder, errno: errno) }
            var info = stat()
            guard lstat(folder, &info) == 0 else { throw SystemError(call: "lstat", path: folder, errno: errno) }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError(call: "mkdir", path: folder, errno: ENOTDIR) }
        }
    }

    /// Boxes are clipped to the image and keypoints outside it are `0 0 0`, as YOLO's loaders require
    /// fractions from 0 to 1.
    private func render(yolo result: FrameResult) -> String {
        let w = Double(max(result.previewSize.width, 1))
        let h = Double(max(result.previewSize.height, 1))
        return result.faces.compactMap { face in
            guard let b = face.preview.clipped(to: result.previewSize) else { return nil }
            var fields = [(b.x + b.width / 2) / w, (b.y + b.height / 2) / h, b.width / w, b.height / h].map(decimal)
            if let points = face.previewLandmarks?.points {
                landmarks = true
                fields += points.flatMap { point in
                    (0...w).contains(point.x) && (0...h).contains(point.y) ? [decimal(point.x / w), decimal(point.y / h), "2"] : ["0", "0", "0"]
                }
            }
            return "0 " + fields.joined(separator: " ") + "\n"
        }.joined()
    }

    /// VOC's corners are the box's inside the image, unrounded (VOC's own files hold whole pixels,
    /// from 1); a box cut by the image's edge is `truncated`.
    private func render(voc result: FrameResult, file: String) -> String {
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
        return xml + "</annotation>\n"
    }

    private func render(wider result: FrameResult, name: String) -> String {
        let lines = result.faces.map { face in
            [face.preview.x, face.preview.y, face.preview.width, face.preview.height, face.score ?? 1].map(decimal)
                .joined(separator: " ") + "\n"
        }
        return "\(name)\n\(result.faces.count)\n" + lines.joined()
    }

    static func removingExtension(_ name: String) -> String {
        let file = lastComponent(name)
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return name }
        return String(name.dropLast(file.distance(from: dot, to: file.endIndex)))
    }
}

private func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

private func directoryOf(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// ".jpg" for "a.jpg", "" without an extension.
private func extensionOf(_ file: String) -> String {
    String(file.dropFirst(DatasetFolder.removingExtension(file).count))
}


extension Face {
    /// VOC's viewpoint from the preview's yaw (`--pose`): Frontal within 30 degrees of the camera,
    /// else Left or Right, the way the face looks as the picture shows it; Unspecified without a pose.
    var vocPose: String {
        guard let yaw = previewPose?.yaw else { return "Unspecified" }
        return abs(yaw) < 30 ? "Frontal" : yaw > 0 ? "Right" : "Left"
    }
}
