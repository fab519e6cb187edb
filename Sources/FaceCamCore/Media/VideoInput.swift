/// Where a video comes from: a file, a stream FFmpeg reads from a URL, or standard input.
public enum VideoInput: Hashable, Sendable, CustomStringConvertible {
    case file(FilePath)
    /// A URL whose scheme FFmpeg may know: http, https, rtsp, rtmp, udp, tcp, srt, ...
    case url(String)
    /// "-": read through FFmpeg's pipe protocol, which needs a format that plays without seeking
    /// (MJPEG AVI, MPEG-TS, Matroska; not an MP4 whose index comes last).
    case standardInput

    /// The extensions of the video files a directory stands for in `redact` (any file named on the
    /// command line is tried, whatever its extension).
    public static let fileExtensions: Set<String> = [
        "mp4", "m4v", "mov", "mkv", "webm", "avi", "ts", "mts", "m2ts", "mpg", "mpeg", "flv", "wmv", "3gp", "ogv",
    ]

    /// "-" is standard input, `SCHEME://...` a URL, anything else a file.
    public init(_ path: FilePath) {
        if path.bytes == Array("-".utf8) {
            self = .standardInput
        } else if let text = String(validating: path.bytes, as: UTF8.self), Self.hasScheme(text) {
            self = .url(text)
        } else {
            self = .file(path)
        }
    }

    /// A scheme as RFC 3986 spells it (a letter, then letters, digits, "+", "-" or "."), then "://".
    private static func hasScheme(_ text: String) -> Bool {
        guard let range = text.range(of: "://"), let first = text.first, first.isASCII, first.isLetter else { return false }
        return text[..<range.lowerBound].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// The local file FFmpeg would open: a file's path, or a `file:` URL's (FFmpeg opens what follows
    /// "file:" as it is); nil for other URLs and standard input.
    package var localPath: FilePath? {
        switch self {
        case .file(let path): return path
        case .url(let url):
            guard url.lowercased().hasPrefix("file:") else { return nil }
            return FilePath(String(url.dropFirst(5)))
        case .standardInput: return nil
        }
    }

    /// True for what arrives over time (URLs, standard input), which may stall.
    public var isStream: Bool {
        if case .file = self { false } else { true }
    }

    /// Runs `body` with what FFmpeg is given to open, as a C string: "file:" and a file's path as
    /// its bytes (which need not be UTF-8), so that a name with a colon (`10:00.avi`, `pipe:0`,
    /// `concat:a|b`) is the file it names and no protocol; the URL; or "pipe:0".
    package func withFFmpegName<Value>(_ body: (UnsafePointer<CChar>) -> Value) -> Value {
        switch self {
        case .file(let path): FilePath(bytes: Array("file:".utf8) + path.bytes).withCString(body)
        case .url(let url): url.withCString(body)
        case .standardInput: "pipe:0".withCString(body)
        }
    }

    /// How results and messages name it: the path; the URL with any password replaced by "***"
    /// (results get shared, credentials should not be); "-" for standard input.
    public var description: String {
        switch self {
        case .file(let path):
            return path.description
        case .url(let url):
            guard let (userinfo, host) = Self.authority(of: url), let colon = userinfo.firstIndex(of: ":") else { return url }
            return String(url[..<colon]) + ":***@" + String(url[host...])
        case .standardInput:
            return "-"
        }
    }

    /// What the names of files written about it start with: a file's name without its extension; a
    /// URL's last path component without its extension, or else its host and port (never its user or
    /// password).
    public var nameStem: String {
        switch self {
        case .file(let path): return path.stem
        case .url(let url):
            guard let schemeEnd = url.range(of: "://") else { return FilePath(url).stem }
            let start = Self.authority(of: url)?.host ?? schemeEnd.upperBound
            let rest = url[start...].prefix { $0 != "?" && $0 != "#" }
            let components = rest.split(separator: "/")
            guard components.count > 1, let last = components.last else { return String(components.first ?? "stream") }
            return FilePath(String(last)).stem
        case .standardInput: return FilePath("-").stem
        }
    }

    /// A URL's user information (before the authority's last "@") and where its host starts; nil without user information.
    private static func authority(of url: String) -> (userinfo: Substring, host: String.Index)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return (authority[..<at], url.index(after: at))
    }
}
