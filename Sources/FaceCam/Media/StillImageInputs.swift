/// Expands the paths given on the command line into image files (or the files
/// of other `extensions`), in order, as it goes (so results stream while a
/// large tree is still being walked): files as given, directories as their
/// image files sorted by name (descending into subdirectories only when `recursive`).
///
/// A directory is listed once, however many paths lead to it, so symbolic
/// links that loop end; a file found in directories is reported once. Named
/// files are taken whatever their extension, and as often as they are named.
/// FIFOs, sockets and devices are refused (reading one may block for ever).
public struct StillImageInputs: Sequence, IteratorProtocol {
    /// A file to process, or a path that could not be used.
    public enum Item: Sendable {
        case file(FilePath)
        case failure(FaceCamError)
    }

    public let recursive: Bool
    /// The extensions (lowercase) of the files a directory stands for.
    public let extensions: Set<String>
    /// Paths still to expand, the next one last; `named` for those the user typed.
    private var pending: [(path: FilePath, named: Bool)]
    private var visited: Set<FileIdentity> = []

    public init(paths: [FilePath], recursive: Bool, extensions: Set<String> = ImageFile.extensions) {
        self.recursive = recursive
        self.extensions = extensions
        pending = paths.reversed().map { ($0, true) }
    }

    public mutating func next() -> Item? {
        while let (path, named) = pending.popLast() {
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
                pending += listed.reversed().map { (path.appending($0), false) }
            case .directory:
                continue
            case .regular where named:
                return .file(path)
            case .regular:
                guard isListed(path), visited.insert(status.identity).inserted else { continue }
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
    /// could not be used, as failures. With `keepingOthers`, a path that is no directory is kept as
    /// given, even one that cannot be used, for whoever opens it to report (each shard of a batch its own).
    public static func expanding(
        _ paths: [FilePath], recursive: Bool, extensions: Set<String>, keepingOthers: Bool = false
    ) -> (files: [FilePath], failures: [FaceCamError]) {
        var files: [FilePath] = []
        var failures: [FaceCamError] = []
        for path in paths {
            guard case .file = VideoInput(path), !keepingOthers || (try? fileStatus(path).kind) == .directory else {
                files.append(path)
                continue
            }
            for item in StillImageInputs(paths: [path], recursive: recursive, extensions: extensions) {
                switch item {
                case .file(let file): files.append(file)
                case .failure(let error): failures.append(error)
                }
            }
        }
        return (files, failures)
    }
}
