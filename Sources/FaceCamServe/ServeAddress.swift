/// Where the preview is served: `[HOST:]PORT`, HOST 127.0.0.1 unless named, so
/// that nothing is served beyond this machine unless asked. An IPv6 HOST is
/// written in brackets ([::1]:8080); port 0 takes a free one (reported once bound).
public struct ServeAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// The host served unless one is named: this machine alone.
    public static let defaultHost = "127.0.0.1"

    public init(host: String = Self.defaultHost, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `[HOST:]PORT`; nil for anything else.
    public init?(argument: String) {
        var host = Self.defaultHost
        var portText = Substring(argument)
        if argument.hasPrefix("[") {
            guard let close = argument.firstIndex(of: "]"), argument[argument.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = String(argument[argument.index(after: argument.startIndex)..<close])
            portText = argument[argument.index(close, offsetBy: 2)...]
        } else if let colon = argument.lastIndex(of: ":") {
            host = String(argument[..<colon])
            portText = argument[argument.index(after: colon)...]
            // A bare IPv6 address would be ambiguous with its port: it goes in brackets.
            if host.contains(":") { return nil }
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }), !portText.isEmpty,
              portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText), port <= 65535 else {
            return nil
        }
        self.init(host: host, port: port)
    }

    /// True for 0.0.0.0 and ::, which listen on every network the machine is on.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// Reachable from this machine only: localhost, 127.0.0.0/8 or ::1.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    /// HOST:PORT, with an IPv6 HOST in brackets, as URLs write it.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
