import Foundation

/// A dataset's image folder (`--image-root`): labelling tools look images up by their path relative
/// to it. Paths are compared as written, made absolute but with no link followed.
public struct ImageRoot: Sendable, Equatable {
    /// Absolute, without "." or ".." components or a trailing slash.
    public let path: String

    public init(_ path: String) {
        self.path = Self.absolute(path)
    }

    /// `source` relative to the root; nil when it is not inside.
    public func relative(_ source: String) -> String? {
        let full = Self.absolute(source)
        let prefix = path == "/" ? "/" : path + "/"
        return full.hasPrefix(prefix) && full.count > prefix.count ? String(full.dropFirst(prefix.count)) : nil
    }

    /// True when the root is a directory (following links, as tools reading images from it do).
    public var isDirectory: Bool { (try? fileKind(path)) == .directory }

    /// True when `source` is the root or inside it.
    public func holds(_ source: String) -> Bool {
        Self.absolute(source) == path || relative(source) != nil
    }

    static func absolute(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
