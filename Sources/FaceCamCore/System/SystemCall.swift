#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: which call, on which path, and errno.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var path: String?
    public var errno: Int32

    public init(call: String, path: String?, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var reason: String { String(cString: strerror(errno)) }

    public var description: String {
        "\(call)(\(path ?? "")): \(reason)"
    }
}

/// What a system call that may not block came back with.
public enum SyscallOutcome<Value> {
    case completed(Value)
    /// EAGAIN/EWOULDBLOCK: nothing to do yet, try again later.
    case wouldBlock
}

/// Runs a system call that returns -1 and sets errno on failure, as
/// swift-nio's wrapper does: EINTR is retried, EAGAIN comes back as
/// `.wouldBlock`, anything else is thrown naming `call` and `path`.
public func syscall<Value: FixedWidthInteger>(
    _ call: String, path: String? = nil, _ body: () -> Value
) throws(SystemError) -> SyscallOutcome<Value> {
    while true {
        let result = body()
        if result != -1 { return .completed(result) }
        let code = errno
        switch code {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        default: throw SystemError(call: call, path: path, errno: code)
        }
    }
}

/// `syscall` for blocking descriptors, where EAGAIN cannot happen and is a failure if it does.
@discardableResult
package func blockingSyscall<Value: FixedWidthInteger>(
    _ call: String, path: String? = nil, _ body: () -> Value
) throws(SystemError) -> Value {
    switch try syscall(call, path: path, body) {
    case .completed(let value): return value
    case .wouldBlock: throw SystemError(call: call, path: path, errno: EAGAIN)
    }
}

/// An open file descriptor with a single owner, closed when the owner goes away.
package struct FileDescriptor: ~Copyable {
    package let rawValue: Int32
    /// For messages.
    package let path: String

    /// Files that `flags` create get mode 0644 (less the umask).
    package init(opening path: FilePath, flags: Int32) throws(SystemError) {
        let name = path.description
        self.rawValue = try path.withCString { raw throws(SystemError) in
            try blockingSyscall("open", path: name) { open(raw, flags | O_CLOEXEC, 0o644) }
        }
        self.path = name
    }

    package init(opening path: String, flags: Int32) throws(SystemError) {
        try self.init(opening: FilePath(path), flags: flags)
    }

    /// A descriptor of its own for what `descriptor` has open (standard input, say).
    package init(duplicating descriptor: Int32, path: String) throws(SystemError) {
        rawValue = try blockingSyscall("dup", path: path) { fcntl(descriptor, F_DUPFD_CLOEXEC, 0) }
        self.path = path
    }

    deinit { close(rawValue) }

    /// Writes every byte of `bytes`.
    package func write(_ bytes: [UInt8]) throws(SystemError) {
        try writeAll(bytes, to: rawValue, path: path)
    }

    package func status() throws(SystemError) -> stat {
        var info = stat()
        try blockingSyscall("fstat", path: path) { fstat(rawValue, &info) }
        return info
    }

    /// Reads until end of file, at most `limit` bytes.
    package func readAll(limit: Int) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // withUnsafeMutableBytes rethrows untyped errors: carry the typed one out in a Result.
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in
                    try blockingSyscall("read", path: path) { read(rawValue, buffer.baseAddress, buffer.count) }
                }
            }.get()
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit { throw SystemError(call: "read", path: path, errno: EFBIG) }
        }
    }
}

/// The first line of the file at `path` (a pipe too), without its line break: read up to the first
/// newline, at most `limit` bytes before it (EFBIG beyond), however large the file.
package func firstLine(ofFile path: String, limit: Int) throws(SystemError) -> [UInt8] {
    let file = try FileDescriptor(opening: path, flags: O_RDONLY)
    var line: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = try chunk.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemError) in
                try blockingSyscall("read", path: path) { read(file.rawValue, buffer.baseAddress, buffer.count) }
            }
        }.get()
        let end = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) ?? count
        line += chunk[..<end]
        if line.count > limit { throw SystemError(call: "read", path: path, errno: EFBIG) }
        if end < count || count == 0 { return line.last == UInt8(ascii: "\r") ? line.dropLast() : line }
    }
}

/// Writes every byte, however many calls that takes.
package func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        offset += try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in
                try blockingSyscall("write", path: path) { write(descriptor, buffer.baseAddress! + offset, buffer.count - offset) }
            }
        }.get()
    }
}

/// Creates `path` and any missing parents, as `mkdir -p` does, with `mode` (less the umask).
package func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
    if (try? fileKind(path)) == .directory { return }
    let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if !parent.isEmpty { try makeDirectories(parent, mode: mode) }
    if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError(call: "mkdir", path: path, errno: errno) }
    // EEXIST: a directory another process made meanwhile is fine; a file of that name is not one.
    if try fileKind(path) != .directory { throw SystemError(call: "mkdir", path: path, errno: ENOTDIR) }
}

public enum FileKind: Sendable {
    /// FIFOs, sockets and devices are `other`: reading one may block for ever.
    case regular, directory, other

    package init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        default: self = .other
        }
    }
}

/// `stat(2)` of `path`, following symbolic links.
package func fileInfo(_ path: FilePath) throws(SystemError) -> stat {
    var info = stat()
    _ = try path.withCString { raw throws(SystemError) in
        try blockingSyscall("stat", path: path.description) { stat(raw, &info) }
    }
    return info
}

/// What `path` names, and which file it is, following symbolic links.
package func fileStatus(_ path: FilePath) throws(SystemError) -> (kind: FileKind, identity: FileIdentity) {
    let info = try fileInfo(path)
    return (FileKind(info), FileIdentity(info))
}

package func fileKind(_ path: String) throws(SystemError) -> FileKind {
    try fileStatus(FilePath(path)).kind
}

/// The names in a directory, as bytes, without "." and "..", in no particular order.
package func directoryEntries(_ path: FilePath) throws(SystemError) -> [[UInt8]] {
    guard let stream = path.withCString({ opendir($0) }) else {
        throw SystemError(call: "opendir", path: path.description, errno: errno)
    }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while true {
        errno = 0
        guard let entry = readdir(stream) else {
            if errno != 0 { throw SystemError(call: "readdir", path: path.description, errno: errno) }
            return names
        }
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        if name != Array(".".utf8) && name != Array("..".utf8) { names.append(name) }
    }
}
