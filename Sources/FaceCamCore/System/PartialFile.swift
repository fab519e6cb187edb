#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A file written under a name of its own beside its destination and renamed to it once whole, so
/// that a finished name always means a finished file.
///
/// The name, `DESTINATION.partial-XXXXXXXX` (the destination's file name cut short, at a character,
/// where the whole would pass the 255 bytes a name may have), is new: it is created with `O_EXCL`, so a link planted
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
    /// The paths of the partial files not yet committed or discarded, for `discardAllOpen`.
    private static let unfinished = Mutex<Set<String>>([])

    public convenience init(for destination: String) throws(SystemError) {
        try self.init(for: destination, suffixes: Self.randomSuffix)
    }

    /// `suffixes` gives the names tried, in turn (the tests' seam).
    init(for destination: String, suffixes: () -> String) throws(SystemError) {
        self.destination = destination
        var attempts = 0
        while true {
            let candidate = Self.stem(of: destination) + ".partial-" + suffixes()
            do {
                descriptor = try blockingSyscall("open", path: candidate) {
                    open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                }
                path = candidate
                _ = Self.unfinished.withLock { $0.insert(candidate) }
                return
            } catch where error.errno == EEXIST && attempts < 16 {
                attempts += 1
            } catch {
                // The destination is what the user named; the partial name is facecam's.
                throw SystemError(call: error.call, path: destination, errno: error.errno)
            }
        }
    }

    deinit {
        close(descriptor)
        discard()
    }

    /// Makes the file durable (unless `durably` is false: a name that cannot be whole after a kill,
    /// but may be after a power loss, for the many files a run can write again, such as annotated
    /// frames), then gives it its destination's name.
    public func commit(durably: Bool = true) throws(SystemError) {
        if durably { try blockingSyscall("fsync", path: path) { fsync(descriptor) } }
        try blockingSyscall("rename", path: destination) { rename(path, destination) }
        settled = true
        _ = Self.unfinished.withLock { $0.remove(path) }
    }

    /// Makes the file durable and leaves it under its partial name, for the user to look at.
    public func keep() throws(SystemError) {
        try blockingSyscall("fsync", path: path) { fsync(descriptor) }
        settled = true
        _ = Self.unfinished.withLock { $0.remove(path) }
    }

    /// Removes the file now; what is still written to it is lost.
    public func discard() {
        guard !settled else { return }
        unlink(path)
        settled = true
        _ = Self.unfinished.withLock { $0.remove(path) }
    }

    /// Removes every partial file still open, for a process about to end at once (a second Ctrl-C):
    /// what it held is lost anyway, and a run that is not killed leaves none behind.
    public static func discardAllOpen() {
        unfinished.withLock { paths in
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }

    /// Removes the partial files of `destination` that runs killed with SIGKILL left behind (any
    /// `DESTINATION.partial-XXXXXXXX` of eight letters and digits that is a regular file of this
    /// user's), so that a run taking up their work leaves what a clean run does. Only for
    /// destinations no other run is writing. One that cannot be removed (another user's in a
    /// shared folder) or is already gone is left to be.
    public static func removeLeftovers(of destination: String) throws(SystemError) {
        let path = FilePath(stem(of: destination))
        let prefix = (path.bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? []) + Array(".partial-".utf8)
        let isSuffix = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        for name in try directoryEntries(path.parent)
        where name.count == prefix.count + 8 && name.starts(with: prefix) && name.dropFirst(prefix.count).allSatisfy(isSuffix) {
            let leftover = path.parent.appending(name)
            var info = stat()
            guard leftover.withCString({ lstat($0, &info) }) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid()
            else { continue }
            _ = leftover.withCString { unlink($0) }
        }
    }

    /// `destination` with its file name cut, at a character, to leave room for `.partial-XXXXXXXX`
    /// within NAME_MAX.
    static func stem(of destination: String) -> String {
        let start = destination.lastIndex(of: "/").map { destination.index(after: $0) } ?? destination.startIndex
        var name = destination[start...]
        while name.utf8.count > Int(NAME_MAX) - ".partial-XXXXXXXX".utf8.count { name.removeLast() }
        return String(destination[..<start] + name)
    }

    /// Eight letters and digits.
    private static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<8).map { _ in alphabet.randomElement()! })
    }
}
