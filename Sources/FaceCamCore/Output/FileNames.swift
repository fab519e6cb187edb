/// Hands out file names in one directory: each name once, a name already
/// given becoming `NAME-2`, `NAME-3`, ... (annotated JPEGs, per-input results).
public struct FileNames: Sendable {
    private var used: Set<String> = []
    /// Slashes stay (names in subfolders, dataset items), rather than becoming underscores.
    private let keepingFolders: Bool

    public init(keepingFolders: Bool = false) {
        self.keepingFolders = keepingFolders
    }

    /// `name` with slashes made underscores unless folders are kept ("frame" if empty), made unique.
    public mutating func claim(_ name: String) -> String {
        let stem = name.isEmpty ? "frame" : keepingFolders ? name : String(name.map { $0 == "/" ? "_" : $0 })
        var candidate = stem
        var counter = 1
        while used.contains(candidate) {
            counter += 1
            candidate = "\(stem)-\(counter)"
        }
        used.insert(candidate)
        return candidate
    }
}
