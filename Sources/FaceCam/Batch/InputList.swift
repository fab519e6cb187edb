#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `--files-from`: inputs listed one per line, for batches too long for a command line.
public enum InputList {
    /// The longest list read: 256 MB, millions of paths.
    public static let maximumBytes = 256 << 20

    /// The paths in `path` ("-": standard input), one per line, exactly as
    /// written (bytes, not necessarily UTF-8); empty lines are skipped.
    public static func read(_ path: FilePath) throws(SystemError) -> [FilePath] {
        let bytes: [UInt8]
        if path.bytes == Array("-".utf8) {
            let input = try FileDescriptor(duplicating: STDIN_FILENO, path: "standard input")
            bytes = try input.readAll(limit: maximumBytes)
        } else {
            bytes = try FileDescriptor(opening: path, flags: O_RDONLY).readAll(limit: maximumBytes)
        }
        return bytes.split(separator: UInt8(ascii: "\n")).map { FilePath(bytes: Array($0)) }
    }
}
