#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A path as the file system knows it: bytes, which need not be UTF-8. Paths
/// go to system calls as these bytes; people and result files see
/// `description`, where each byte that is not part of valid UTF-8, and each
/// control character (which a terminal would act on), shows as `\xNN`, so no
/// file is lost to a name Swift's strings cannot hold.
public struct FilePath: Hashable, Sendable, CustomStringConvertible {
    /// Without a terminating NUL.
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    public init(_ string: String) { bytes = Array(string.utf8) }

    /// The path typed on the command line that Swift decoded as `argument`
    /// (invalid UTF-8 repaired to U+FFFD): its bytes, found again in argv, as
    /// an argument of its own or after the `=` of `--option=VALUE`.
    public init(argument: String) {
        for index in 0..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: raw, count: strlen(raw)).map { UInt8(bitPattern: $0) }
            let value = bytes.starts(with: Array("--".utf8)) ? bytes.firstIndex(of: UInt8(ascii: "=")).map { Array(bytes[($0 + 1)...]) } : nil
            for candidate in [bytes] + (value.map { [$0] } ?? []) where String(decoding: candidate, as: UTF8.self) == argument {
                self.init(bytes: candidate)
                return
            }
        }
        self.init(argument)
    }

    public var description: String {
        var text = ""
        var position = 0
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.properties.generalCategory == .control {
                    for byte in encoded { text += Self.escaped(byte) }
                } else {
                    text.unicodeScalars.append(scalar)
                }
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<position + length] { text += Self.escaped(byte) }
                position += length
            case .emptyInput:
                return text
            }
        }
    }

    /// `\xNN`, for a byte shown as its value.
    private static func escaped(_ byte: UInt8) -> String {
        "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    /// `self` + "/" + `name` (no second slash when `self` ends in one).
    public func appending(_ name: [UInt8]) -> FilePath {
        FilePath(bytes: bytes.last == UInt8(ascii: "/") ? bytes + name : bytes + [UInt8(ascii: "/")] + name)
    }

    /// The directory the last component is in ("." for a bare name).
    public var parent: FilePath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return FilePath(".") }
        return FilePath(bytes: slash == 0 ? [UInt8(ascii: "/")] : Array(bytes[..<slash]))
    }

    /// The last component, without its extension: the name annotated files are given.
    public var stem: String {
        let name = bytes.split(separator: UInt8(ascii: "/")).last.map(Array.init) ?? bytes
        let stem = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? Array(name[..<$0]) : nil } ?? name
        return FilePath(bytes: stem).description
    }

    /// The extension of the last component, lowercased ASCII; nil when it has none.
    public var fileExtension: String? {
        let name = bytes.split(separator: UInt8(ascii: "/")).last ?? []
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > name.startIndex else { return nil }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// Runs `body` with the path as a NUL-terminated C string.
    public func withCString<Value, Failure: Error>(
        _ body: (UnsafePointer<CChar>) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        // withUnsafeBufferPointer rethrows untyped errors: carry the typed one out in a Result.
        return try terminated.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) in try body(buffer.baseAddress!) }
        }.get()
    }
}

/// Which file a path leads to: its device and inode, the same for every path to it.
public struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
