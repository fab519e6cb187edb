/// Expands the paths given on the command line into image files (or the files
/// of other `extensions`), in order, as it goes (so results stream while a
/// large tree is still being walked): files as given, directories as their
/// image files sorted by name (descending into subdirectories only when `recursive`).
///
/// A directory is listed once, however many paths lead to it, so symbolic
/// links that loop end; a file found in directories is reported once. Named
/// files are taken whatever their extension, and as often as they are named.
/// FIFOs, sockets and devices are refused (reading one may block for ever). A
/// named directory that gives no file is reported, so that a run over the wrong
/// folder does not pass for one over an empty inbox.
public struct StillImageInputs: Sequence, IteratorProtocol {
    /// A file to process, a path that could not be used, a named directory that gave no file, or one that held pictures
    /// or videos of the kind not taken (a video in a folder of photographs given to detect).
    public enum Item: Sendable {
        case file(FilePath)
        case failure(FaceCamError)
        case empty(EmptyDirectory)
        case passedOver(PassedOver)
    }

    /// The images or videos, by extension, a named directory (and the subdirectories entered) held but that are not of
    /// the `extensions` taken: no error, but worth a warning that says who reads them.
    public struct PassedOver: Sendable {
        public let path: FilePath
        public let images: Int
        public let videos: Int
    }

    /// A directory named on the command line that holds no file of the `extensions` taken (only
    /// `subdirectories`, when they are not entered): no error, but worth a warning.
    public struct EmptyDirectory: Sendable, CustomStringConvertible {
        public let path: FilePath
        public let extensions: [String]
        public let subdirectories: Int

        public var description: String {
            let passed = switch subdirectories {
            case 0: ""
            case 1: "; its one subdirectory was not entered"
            default: "; its \(subdirectories) subdirectories were not entered"
            }
            return "\(path): no file to read in it (by extension: \(extensions.joined(separator: ", ")))\(passed)"
        }
    }

    public let recursive: Bool
    /// The extensions (lowercase) of the files a directory stands for.
    public let extensions: Set<String>
    /// Paths still to expand, the next one last.
    private var pending: [Pending]
    private var visited: Set<FileIdentity> = []
    /// Files and failures returned so far, and subdirectories passed over (not `recursive`): what a named directory gave.
    private var given = 0
    private var skippedDirectories = 0
    /// Images and videos not of the `extensions` taken, passed over so far.
    private var passedImages = 0
    private var passedVideos = 0

    private enum Pending {
        /// `named` for the paths the user typed.
        case path(FilePath, named: Bool)
        /// Where a named directory's entries end, with the counts as they stood before them.
        case end(FilePath, given: Int, skippedDirectories: Int, passedImages: Int, passedVideos: Int)
    }

    public init(paths: [FilePath], recursive: Bool, extensions: Set<String> = ImageFile.extensions) {
        self.recursive = recursive
        self.extensions = extensions
        pending = paths.reversed().map { .path($0, named: true) }
    }

    public mutating func next() -> Item? {
        let item = expandNext()
        switch item {
        case .file, .failure: given += 1
        case .empty, .passedOver, nil: break
        }
        return item
    }

    private mutating func expandNext() -> Item? {
        while let item = pending.popLast() {
            let (path, named): (FilePath, Bool)
            switch item {
            case .path(let next, let typed):
                (path, named) = (next, typed)
            case .end(let directory, let givenBefore, let skipped, let imagesBefore, let videosBefore):
                if given == givenBefore {
                    return .empty(EmptyDirectory(path: directory, extensions: extensions.sorted(), subdirectories: skippedDirectories - skipped))
                }
                guard passedImages > imagesBefore || passedVideos > videosBefore else { continue }
                return .passedOver(PassedOver(path: directory, images: passedImages - imagesBefore, videos: passedVideos - videosBefore))
            }
            let status: (kind: FileKind, identity: FileIdentity)
            do {
                status = try fileStatus(path)
            } catch {
                return .failure(.unreadable(error))
            }
            switch status.kind {
            case .directory where named || recursive:
                guard visited.insert(status.identity).inserted else { continue }
                let names: [[UInt8]]
                do {
                    names = try directoryEntries(path)
                } catch {
                    return .failure(.unreadable(error))
                }
                let listed = names.filter { $0.first != UInt8(ascii: ".") }.sorted { $0.lexicographicallyPrecedes($1) }
                if named {
                    pending.append(.end(
                        path, given: given, skippedDirectories: skippedDirectories, passedImages: passedImages, passedVideos: passedVideos))
                }
                pending += listed.reversed().map { .path(path.appending($0), named: false) }
            case .directory:
                skippedDirectories += 1
            case .regular where named:
                return .file(path)
            case .regular:
                guard isListed(path) else {
                    let named = path.fileExtension
                    if let named, ImageFile.extensions.contains(named) { passedImages += 1 }
                    if let named, VideoInput.fileExtensions.contains(named) { passedVideos += 1 }
                    continue
                }
                guard visited.insert(status.identity).inserted else { continue }
                return .file(path)
            case .other where named || isListed(path):
                return .failure(.notARegularFile(path: path.description))
            case .other:
                continue
            }
        }
        return nil
    }

    private func isListed(_ path: FilePath) -> Bool {
        path.fileExtension.map(extensions.contains) ?? false
    }
}

extension StillImageInputs {
    /// `paths` with each directory replaced by its files of `extensions` (its subdirectories' too when
    /// `recursive`), files as named, and streams (a URL, standard input) kept as given; the paths that
    /// could not be used, as failures; the named directories that gave no file, and those that held images or videos of
    /// the kind not taken. With `keepingOthers`, a path that is no directory is kept as
    /// given, even one that cannot be used, for whoever opens it to report (each shard of a batch its own).
    public static func expanding(
        _ paths: [FilePath], recursive: Bool, extensions: Set<String>, keepingOthers: Bool = false
    ) -> (files: [FilePath], failures: [FaceCamError], empty: [EmptyDirectory], passedOver: [PassedOver]) {
        var files: [FilePath] = []
        var failures: [FaceCamError] = []
        var empty: [EmptyDirectory] = []
        var passedOver: [PassedOver] = []
        for path in paths {
            guard case .file = VideoInput(path), !keepingOthers || (try? fileStatus(path).kind) == .directory else {
                files.append(path)
                continue
            }
            for item in StillImageInputs(paths: [path], recursive: recursive, extensions: extensions) {
                switch item {
                case .file(let file): files.append(file)
                case .failure(let error): failures.append(error)
                case .empty(let directory): empty.append(directory)
                case .passedOver(let passed): passedOver.append(passed)
                }
            }
        }
        return (files, failures, empty, passedOver)
    }
}
