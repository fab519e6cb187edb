#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file written under a name of its own beside its destination and renamed to it once whole, so
/// that a finished name always means a finished file.
///
/// The name, `DESTINATION.partial-XXXXXXXX`, is new: it is created with `O_EXCL`, so a link planted
/// in a shared output folder is never followed, and two runs writing one destination never write
/// into one file. The rename replaces whatever the destination was, a link included, without
/// following it. Removed unless committed; a run killed with SIGKILL leaves it behind.
public final class PartialFile {
    public let destination: String
    public let path: String
    /// Open for writing until the file goes away.
    public let descriptor: Int32
    /// Committed or discarded: the name is no longer the partial file's to remove.
    private var settled = false

    public init(for destination: String) throws(SystemError) {
        self.destination = destination
        var attempts = 0
        while true {
            let candidate = destination + ".partial-" + Self.randomSuffix()
            do {
                descriptor = try blockingSyscall("open", path: candidate) {
                    open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                }
                path = candidate
                return
            } catch where error.errno == EEXIST && attempts < 16 {
                attempts += 1
            }
        }
    }

    deinit {
        close(descriptor)
        discard()
    }

    /// Makes the file durable, then gives it its destination's name.
    public func commit() throws(SystemError) {
        try blockingSyscall("fsync", path: path) { fsync(descriptor) }
        try blockingSyscall("rename", path: destination) { rename(path, destination) }
        settled = true
    }

    /// Removes the file now; what is still written to it is lost.
    public func discard() {
        guard !settled else { return }
        unlink(path)
        settled = true
    }

    /// Removes the partial files of `destination` that runs killed with SIGKILL left behind (any
    /// `DESTINATION.partial-XXXXXXXX`), so that a run taking up their work leaves what a clean run
    /// does. Only for destinations no other run is writing.
    public static func removeLeftovers(of destination: String) throws(SystemError) {
        let path = FilePath(destination)
        let prefix = (path.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []) + Array(".partial-".utf8)
        for name in try directoryEntries(path.parent) where name.count == prefix.count + 8 && name.starts(with: prefix) {
            let leftover = path.parent.appending(name)
            try blockingSyscall("unlink", path: leftover.description) { leftover.withCString { unlink($0) } }
        }
    }

    /// Eight letters and digits.
    private static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<8).map { _ in alphabet.randomElement()! })
    }
}
