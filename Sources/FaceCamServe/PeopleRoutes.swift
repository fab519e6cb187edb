#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FaceCam
import Foundation
import NIOHTTP1

/// The people panel as the preview server offers it (live --serve --recognize): GET /people (JSON) and
/// /people/N.jpg (a best shot), and, when changes are allowed, POST /people/name, /people/dismiss, /people/rename and
/// /people/forget with a small JSON body. A change must carry the token in `X-Facecam-Token`, come from the page's own
/// origin (a browser's `Origin` and `Sec-Fetch-Site` say where a request comes from; a client that sends neither is not
/// a page of another site) and be JSON (which another site's form cannot send without asking first, and is not
/// answered). Every route of the panel answers only to a `Host` that is an address, localhost or this machine's name,
/// so that a page of another site whose name was pointed at this machine (DNS rebinding) reads nothing. Changes run one
/// at a time on a queue of their own, since the gallery may keep them waiting.
public struct PeoplePanel: Sendable {
    /// A change's body beyond this is refused (413).
    public static let maximumBody = 4096
    /// The token's header.
    public static let tokenHeader = "X-Facecam-Token"

    public let desk: any PeopleDesk
    /// What every change must carry; nil: the panel is read-only.
    public let changeToken: String?
    let changes = DispatchQueue(label: "facecam.people-changes")

    public init(desk: any PeopleDesk, changeToken: String?) {
        self.desk = desk
        self.changeToken = changeToken
    }

    /// An answer: its status and its body, JSON.
    struct Answer: Equatable {
        var status: HTTPResponseStatus
        var body: String
    }

    /// Whether `path` is one of the panel's.
    static func isPanel(_ path: String) -> Bool { path == "/people" || path.hasPrefix("/people/") }

    /// Why a request for one of the panel's routes is refused whatever it asks, or nil: a Host that names neither an
    /// address nor this machine.
    static func hostRefusal(_ head: HTTPRequestHead) -> Answer? {
        let host = head.headers.first(name: "Host").map(hostName) ?? ""
        guard !isThisMachine(host) else { return nil }
        return Answer(status: .forbidden, body: message(
            "the people panel answers to this machine's addresses, localhost and \(machineName.map { "'\($0)'" } ?? "its name"), "
                + "not to '\(host)' (a proxy in front of it passes the Host it reached, as nginx's default does)"))
    }

    /// The host of a Host header or an origin's authority, without its port or brackets.
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        if let colon = authority.lastIndex(of: ":"), authority[authority.index(after: colon)...].allSatisfy(\.isNumber) {
            return String(authority[..<colon])
        }
        return authority
    }

    private static let machineName: String? = {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return nil }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text.lowercased()
    }()

    /// An IPv4 or IPv6 address, localhost, or this machine's name (also with .local, as mDNS gives it).
    static func isThisMachine(_ host: String) -> Bool {
        let host = host.lowercased()
        var address = in6_addr()
        if inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1 { return true }
        return host == "localhost" || machineName.map { host == $0 || host == $0 + ".local" } == true
    }

    /// GET /people and /people/N.jpg; nil for another path.
    func read(_ path: String) -> (status: HTTPResponseStatus, body: [UInt8], type: String)? {
        if path == "/people" {
            return (.ok, Array(listingJSON().utf8), "application/json")
        }
        guard path.hasPrefix("/people/"), path.hasSuffix(".jpg"),
            let number = Int(path.dropFirst("/people/".count).dropLast(".jpg".count))
        else { return nil }
        guard let jpeg = desk.picture(number) else {
            return (.notFound, Array(Self.message("no picture \(number): it was named, dismissed or left the panel").utf8), "application/json")
        }
        return (.ok, jpeg, "image/jpeg")
    }

    /// Whether `path` is a change's.
    static func isChange(_ path: String) -> Bool {
        ["/people/name", "/people/dismiss", "/people/rename", "/people/forget"].contains(path)
    }

    /// Why the change requested by `head` (its body `bodyBytes` long) is refused before its body is looked at, or nil to go on.
    func refusal(of head: HTTPRequestHead, bodyBytes: Int) -> Answer? {
        guard let changeToken else {
            return Answer(status: .forbidden, body: Self.message(
                "the people panel is read-only: start live with --serve-allow-changes to name people from the page"))
        }
        if let site = head.headers.first(name: "Sec-Fetch-Site"), site != "same-origin", site != "none" {
            return Answer(status: .forbidden, body: Self.message("a change from another site is refused"))
        }
        // The origin's host and port against those the request was sent to: a proxy that adds HTTPS changes the scheme
        // only, and one that passes the Host it was sent to upstream says the original in X-Forwarded-Host.
        if let origin = head.headers.first(name: "Origin") {
            let authority = origin.split(separator: "://", maxSplits: 1).dropFirst().first.map(String.init)
            let sentTo = [head.headers.first(name: "Host"), head.headers.first(name: "X-Forwarded-Host")].compactMap { $0 }
            guard let authority, sentTo.contains(where: { $0.lowercased() == authority.lowercased() }) else {
                return Answer(status: .forbidden, body: Self.message("a change from another origin (\(origin)) is refused"))
            }
        }
        guard let given = head.headers.first(name: Self.tokenHeader), Self.same(given, changeToken) else {
            return Answer(status: .forbidden, body: Self.message(
                "a change needs the token live wrote at its start, in the \(Self.tokenHeader) header"))
        }
        if bodyBytes > Self.maximumBody {
            return Answer(status: .payloadTooLarge, body: Self.message("a change's body is at most \(Self.maximumBody) bytes"))
        }
        let type = head.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/json" else {
            return Answer(status: .unsupportedMediaType, body: Self.message("a change's body is JSON (Content-Type: application/json)"))
        }
        return nil
    }

    /// The change `path` and `body` ask for, or a 400 saying what is wrong with them.
    static func change(path: String, body: [UInt8]) -> Result<PeopleChange, AnswerError> {
        struct Fields: Decodable {
            var tracks: [Int]?
            var name: String?
            var to: String?
        }
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(body)) else {
            return .failure(AnswerError(.badRequest, "the body is not a JSON object of tracks, name and to"))
        }
        switch (path, fields.tracks, fields.name, fields.to) {
        case ("/people/name", let tracks?, let name?, nil) where !tracks.isEmpty: return .success(.name(tracks: tracks, as: name))
        case ("/people/dismiss", let tracks?, nil, nil) where !tracks.isEmpty: return .success(.dismiss(tracks: tracks))
        case ("/people/rename", nil, let name?, let to?): return .success(.rename(name, to: to))
        case ("/people/forget", nil, let name?, nil): return .success(.forget(name))
        default:
            let wanted = ["/people/name": "tracks (numbers) and name", "/people/dismiss": "tracks (numbers)",
                          "/people/rename": "name and to", "/people/forget": "name"][path] ?? ""
            return .failure(AnswerError(.badRequest, "\(path) takes \(wanted)"))
        }
    }

    struct AnswerError: Error {
        var answer: Answer
        init(_ status: HTTPResponseStatus, _ text: String) { answer = Answer(status: status, body: PeoplePanel.message(text)) }
    }

    /// Makes `change`, waiting on the gallery if it must: call it on `changes`.
    func perform(_ change: PeopleChange) -> Answer {
        switch desk.perform(change) {
        case .done(let text): Answer(status: .ok, body: Self.message(text))
        case .refused(let text): Answer(status: .badRequest, body: Self.message(text))
        case .conflict(let text): Answer(status: .conflict, body: Self.message(text))
        case .failed(let text): Answer(status: .internalServerError, body: Self.message(text))
        }
    }

    /// {"message": text}.
    static func message(_ text: String) -> String {
        JSONOutput.object([("message", .string(text))]).text + "\n"
    }

    /// Compared in a time that depends on the lengths alone, so that the time taken tells nothing of the token.
    private static func same(_ given: String, _ token: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(token.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func listingJSON() -> String {
        let listing = desk.listing()
        let unknown = listing.unknown.map { group -> JSONOutput in
            .object([
                ("tracks", .array(group.tracks.map(JSONOutput.integer))),
                ("picture", .string("people/\(group.picture).jpg?v=\(group.pictureVersion)")),
                ("firstSeen", .decimal(group.firstSeen)), ("lastSeen", .decimal(group.lastSeen)),
                ("zones", .array(group.zones.map(JSONOutput.string))),
            ])
        }
        let known = listing.known.map { person -> JSONOutput in
            .object([("name", .string(person.name)), ("lastSeen", person.lastSeen.map(JSONOutput.decimal) ?? .null)])
        }
        return JSONOutput.object([("changes", .bool(changeToken != nil)), ("unknown", .array(unknown)), ("known", .array(known))]).text
            + "\n"
    }
}
