#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `--files-from`: inputs listed one per line, for batches too long for a command line.
public enum InputList {
    /// The longest list read: 256 MB, millions of paths.
    public static let maximumBytes = 256 << 20

    /// Why a list could not be used.
    public enum Failure: Error, Sendable {
        case unreadable(SystemError)
        /// A line (counted from 1) holds a NUL byte.
        case nul(line: Int)

        public var reason: String {
            switch self {
            case .unreadable(let error): error.reason
            case .nul(let line): "line \(line) holds a NUL byte, which no path can hold"
            }
        }
    }

    /// The paths in `path` ("-": standard input), one per line, exactly as
    /// written (bytes, not necessarily UTF-8); empty lines are skipped. A NUL
    /// byte, which no path can hold, is refused rather than cutting its path short.
    public static func read(_ path: FilePath) throws(Failure) -> [FilePath] {
        let bytes: [UInt8]
        do {
            if path.bytes == Array("-".utf8) {
                let input = try FileDescriptor(duplicating: STDIN_FILENO, path: "standard input")
                bytes = try input.readAll(limit: maximumBytes)
            } else {
                bytes = try FileDescriptor(opening: path, flags: O_RDONLY).readAll(limit: maximumBytes)
            }
        } catch {
            throw .unreadable(error)
        }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if let line = lines.firstIndex(where: { $0.contains(0) }) {
            throw .nul(line: line + 1)
        }
        return lines.filter { !$0.isEmpty }.map { FilePath(bytes: Array($0)) }
    }
}
