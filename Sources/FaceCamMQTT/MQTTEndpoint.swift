import FaceCam

/// Where `live --mqtt` publishes: `mqtt://[USER@]HOST[:PORT]` or `mqtts://...` (TLS).
/// A password has no place in it: the command line shows in `ps` to every user.
public struct MQTTEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var username: String?
    /// MQTT's ports (IANA), when the URL names none.
    public static let defaultPort = 1883, defaultTLSPort = 8883

    /// Parses a broker URL; the error says what is wrong, in words for a usage error.
    public init(parsing text: String) throws(MQTTEndpointError) {
        // Checked first, so that no message repeats a password: whatever is before the last @ and holds a colon.
        let afterScheme = text.range(of: "://").map { text[$0.upperBound...] } ?? text[...]
        if let at = afterScheme.lastIndex(of: "@"), afterScheme[..<at].contains(":") {
            throw MQTTEndpointError("the broker URL holds a password, which ps shows to every user of this machine", holdsPassword: true)
        }
        let scheme: Substring
        let rest: Substring
        if let separator = text.range(of: "://") {
            scheme = text[..<separator.lowerBound]
            rest = text[separator.upperBound...]
        } else {
            throw .init("\(text) is no broker URL: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        }
        switch scheme.lowercased() {
        case "mqtt", "tcp": tls = false
        case "mqtts", "ssl": tls = true
        default: throw .init("\(text): the scheme is mqtt:// or mqtts://, not \(scheme)://")
        }
        var authority = rest
        if let slash = authority.firstIndex(of: "/") {
            guard authority[slash...] == "/" else { throw .init("\(text): a broker URL has no path (\(authority[slash...]))") }
            authority = authority[..<slash]
        }
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            guard !user.isEmpty else { throw .init("\(text): the user before @ is empty") }
            username = String(user)
            authority = authority[authority.index(after: at)...]
        } else {
            username = nil
        }
        let defaultPort = tls ? Self.defaultTLSPort : Self.defaultPort
        if authority.hasPrefix("[") {
            // An IPv6 address: [::1]:1883.
            guard let close = authority.firstIndex(of: "]") else { throw .init("\(text): the IPv6 address has no closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            port = try Self.port(after.isEmpty ? nil : after.hasPrefix(":") ? after.dropFirst() : after, default: defaultPort, in: text)
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard !host.contains(":") else { throw .init("\(text): write an IPv6 address in brackets: mqtt://[::1]:1883") }
            port = try Self.port(authority[authority.index(after: colon)...], default: defaultPort, in: text)
        } else {
            host = String(authority)
            port = defaultPort
        }
        guard !host.isEmpty else { throw .init("\(text): the broker URL names no host") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:%".contains($0)) }) else {
            throw .init("\(text): \(host) is no host name or address")
        }
    }

    private static func port(_ text: Substring?, default defaultPort: Int, in url: String) throws(MQTTEndpointError) -> Int {
        guard let text else { return defaultPort }
        guard text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let port = Int(text), (1...65535).contains(port) else {
            throw .init("\(url): the port must be a number from 1 to 65535, not \(text)")
        }
        return port
    }

    /// The URL as messages show it: the user, never a password (there is none).
    public var description: String {
        let address = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(username.map { "\($0)@" } ?? "")\(address):\(port)"
    }
}

public struct MQTTEndpointError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The URL holds a password: it belongs elsewhere.
    public var holdsPassword: Bool
    init(_ description: String, holdsPassword: Bool = false) {
        self.description = description
        self.holdsPassword = holdsPassword
    }
}
