import Foundation

/// A folder format's folder (`FolderFormat`: YOLO, Pascal VOC, WIDER's detection results), written to
/// `--output-dir`, in the preview's coordinates (the upright image, as labelling tools show it).
///
/// ITEM is the image's path relative to the image root without its extension, or its name without the
/// extension when there is no root; a video's frames are `STEM_FRAME` (six digits, from 0). A name
/// already given gets `-2`, `-3`, ... Each file is written as a `PartialFile` and renamed whole; the index
/// files (`data.yaml`, `train.txt`) come last, at `finish`, so a folder without them is a run that did not end.
final class DatasetFolder {
    let path: String
    private var format: any FolderFormat
    private let context: ExportContext
    private var names = FileNames(keepingFolders: true)
    /// The items written, in order, for the index.
    private var items: [String] = []
    /// The inputs whose names clashed, already warned about.
    private var renamedSources: Set<String> = []

    /// Creates the folder; an earlier run's index files there are removed, so that this run's folder
    /// only looks finished once it is.
    init(path: String, format: any FolderFormat.Type, context: ExportContext) throws(SystemError) {
        self.path = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        self.format = format.init(context: context)
        self.context = context
        try makeDirectories(self.path)
        for index in format.indexFiles where unlink(self.path + "/" + index) != 0 && errno != ENOENT {
            throw SystemError(call: "unlink", path: self.path + "/" + index, errno: errno)
        }
    }

    /// Writes the frame's file; says so when its name was taken by another image's.
    func write(_ result: FrameResult) throws(SystemError) -> ItemRenamed? {
        let frame = context.video ? String(format: "_%06d", result.frame) : ""
        let name = safeItem(format.item(for: result, source: context.name(of: result.source), frame: frame))
        let item = names.claim(name)
        var warning: ItemRenamed?
        // Once per input: a video's frames would all say it.
        if item != name, renamedSources.insert(result.source).inserted {
            warning = ItemRenamed(image: result.imageName, file: item, taken: name)
        }
        items.append(item)
        let file = format.file(for: result, item: item)
        try save(file.text, as: file.path)
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
        for file in format.index(items: items, folder: path) { try save(file.text, as: file.path) }
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

    /// The item of a format with a file per image (YOLO, VOC): the image's path relative to the image root, or its
    /// name when there is none, without its extension, then `frame`.
    static func imageItem(source: String, frame: String, context: ExportContext) -> String {
        removingExtension(context.imageRoot == nil ? lastComponent(source) : source) + frame
    }

    static func removingExtension(_ name: String) -> String {
        let file = lastComponent(name)
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return name }
        return String(name.dropLast(file.distance(from: dot, to: file.endIndex)))
    }
}

func lastComponent(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

func directoryOf(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// A dataset item that could not be named after its image, whose name another image's item took.
public struct ItemRenamed: Sendable, Equatable, CustomStringConvertible {
    public var image: String
    /// The item's file name, and the name it should have had.
    public var file: String
    public var taken: String

    public var description: String {
        "warning: \(image): its file is \(file), as another image's took \(taken), so it no longer "
            + "matches the image's name: rename one of them"
    }
}
