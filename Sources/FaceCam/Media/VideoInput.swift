/// Where a video comes from: a file, a stream FFmpeg reads from a URL, or standard input.
public enum VideoInput: Hashable, Sendable, CustomStringConvertible {
    case file(FilePath)
    /// A URL whose scheme FFmpeg may know: http, https, rtsp, rtmp, udp, tcp, srt, ...
    case url(String)
    /// "-": read through FFmpeg's pipe protocol, which needs a format that plays without seeking
    /// (MJPEG AVI, MPEG-TS, Matroska; not an MP4 whose index comes last).
    case standardInput

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

    /// True for what arrives over time (URLs, standard input), which may stall.
    public var isStream: Bool {
        if case .file = self { false } else { true }
    }

    /// Runs `body` with what FFmpeg is given to open, as a C string: a file's path as its bytes
    /// (which need not be UTF-8), the URL, or "pipe:0".
    func withFFmpegName<Value>(_ body: (UnsafePointer<CChar>) -> Value) -> Value {
        switch self {
        case .file(let path): path.withCString(body)
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
            guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].firstIndex(of: "@") else {
                return url
            }
            let authority = url[schemeEnd.upperBound..<at]
            if authority.contains("/") { return url }
            guard let colon = authority.firstIndex(of: ":") else { return url }
            return String(url[..<colon]) + ":***" + String(url[at...])
        case .standardInput:
            return "-"
        }
    }
}
