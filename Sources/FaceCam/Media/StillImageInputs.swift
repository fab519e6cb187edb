/// Expands the paths given on the command line into image files, in order:
/// files as given, directories as their image files sorted by name
/// (descending into subdirectories only when `recursive`).
public struct StillImageInputs: Sequence {
    /// A file to process, or a path that could not be listed.
    public enum Item: Sendable {
        case file(String)
        case failure(FaceCamError)
    }

    public let paths: [String]
    public let recursive: Bool

    public init(paths: [String], recursive: Bool) {
        self.paths = paths
        self.recursive = recursive
    }

    public func makeIterator() -> IndexingIterator<[Item]> {
        paths.flatMap { expand($0, listing: true) }.makeIterator()
    }

    /// `listing` is true for paths named by the user: those are taken whatever
    /// their extension; files found in a directory must look like images.
    private func expand(_ path: String, listing: Bool) -> [Item] {
        let kind: FileKind
        do {
            kind = try fileKind(path)
        } catch {
            return [.failure(.unreadable(error))]
        }
        switch kind {
        case .directory where listing || recursive:
            let names: [String]
            do {
                names = try directoryEntries(path)
            } catch {
                return [.failure(.unreadable(error))]
            }
            let prefix = path.hasSuffix("/") ? path : path + "/"
            return names.filter { !$0.hasPrefix(".") }.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
                .flatMap { expand(prefix + $0, listing: false) }
        case .directory:
            return []
        case .regular, .other:
            return listing || isImageName(path) ? [.file(path)] : []
        }
    }

    private func isImageName(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return ImageFile.extensions.contains(path[path.index(after: dot)...].lowercased())
    }
}
