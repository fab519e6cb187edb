#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FaceCam

/// The secret that the people panel's changes carry (live --serve-allow-changes): given in a file that only its owner
/// may read or in the environment, never on the command line (which every user of the machine can list), or made at the
/// start and written to such a file.
public enum ChangeToken {
    public static let environmentVariable = "FACECAM_SERVE_TOKEN"
    static let shortest = 16
    static let longest = 256

    /// Why a token cannot be used.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// A new token: 32 random bytes from the system's generator, in hex.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The token in the file at `path`, its first line: refused when anyone but its owner may read it.
    public static func read(file path: String) throws(Failure) -> String {
        let name = FilePath(path).description
        let info: stat
        do throws(SystemError) { info = try fileInfo(FilePath(path)) } catch {
            throw Failure(description: "--serve-token-file \(name): \(error.reason)")
        }
        guard FileKind(info) == .regular else { throw Failure(description: "--serve-token-file \(name): not a regular file") }
        guard info.st_mode & (S_IRWXG | S_IRWXO) == 0 else {
            throw Failure(description: "--serve-token-file \(name): others than its owner may read it: chmod 600 it")
        }
        let line: [UInt8]
        do throws(SystemError) { line = try firstLine(ofFile: path, limit: longest) } catch {
            throw Failure(description: "--serve-token-file \(name): \(error.errno == EFBIG ? "its first line is longer than \(longest) bytes" : error.reason)")
        }
        return try checked(String(decoding: line, as: UTF8.self), from: "--serve-token-file \(name)")
    }

    /// `text` as a token: 16 to 256 printable ASCII characters, no space (a header's value carries it whole).
    public static func checked(_ text: String, from source: String) throws(Failure) -> String {
        guard (shortest...longest).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Failure(description: "\(source): a token is \(shortest) to \(longest) printable ASCII characters, without spaces")
        }
        return text
    }

    /// Where a token made at the start is written: $XDG_RUNTIME_DIR/facecam (a folder of the user's own, emptied at
    /// logout), else ~/.local/state/facecam; one file per address served, so that two runs keep their own.
    public static func defaultPath(address: ServeAddress, environment: [String: String]) -> String? {
        let folder = userFolder("XDG_RUNTIME_DIR", else: ".local/state", environment: environment)
        let host = String(address.host.map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" })
        return folder.map { "\($0)/serve-\(host)-\(address.port).token" }
    }

    /// Writes `token` to `path`, readable and writable by its owner only, in folders made for it when missing (0700).
    public static func write(_ token: String, to path: String) throws(SystemError) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty { try makeDirectories(folder, mode: 0o700) }
        let file = try PartialFile(for: path)
        try blockingSyscall("fchmod", path: path) { fchmod(file.descriptor, 0o600) }
        try writeAll(Array((token + "\n").utf8), to: file.descriptor, path: path)
        try file.commit()
    }
}
