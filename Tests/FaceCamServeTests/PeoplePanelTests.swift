import FaceCam
@testable import FaceCamServe
import Foundation
import Synchronization
import Testing

/// The people panel's routes on a real server, asked by curl: what it lists, and which changes it takes or refuses
/// and with what status. The desk is a stand-in that records the changes it is asked for (the real one, PeopleBoard,
/// is tested on a real gallery in FaceCamRecognitionTests, and end to end in FaceCamCLITests).
struct PeoplePanelTests {
    final class Desk: PeopleDesk {
        let changes = Mutex<[PeopleChange]>([])
        let outcome: PeopleChangeOutcome
        /// When given, a change waits for it (a gallery another process holds).
        let gate: DispatchSemaphore?

        init(outcome: PeopleChangeOutcome = .done("ok"), gate: DispatchSemaphore? = nil) {
            self.outcome = outcome
            self.gate = gate
        }

        func listing() -> PeopleListing {
            PeopleListing(
                unknown: [UnknownGroup(tracks: [4, 2], picture: 2, pictureVersion: 3, firstSeen: 100, lastSeen: 120.5, zones: ["door"])],
                known: [KnownPerson(name: "Ada \"the\" first", lastSeen: nil), KnownPerson(name: "Grace", lastSeen: 90)])
        }

        func picture(_ track: Int) -> [UInt8]? { track == 2 ? [0xFF, 0xD8, 0xFF, 0xD9] : nil }

        func perform(_ change: PeopleChange) -> PeopleChangeOutcome {
            changes.withLock { $0.append(change) }
            gate?.wait()
            return outcome
        }
    }

    static let token = "0123456789abcdef0123"

    /// curl's status and body for a request to `server`.
    func curl(_ server: PreviewServer, _ path: String, _ arguments: [String] = [], input: String? = nil) throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "30", "-w", "\n%{http_code}"] + arguments + ["http://\(server.address)\(path)"]
        let output = Pipe()
        process.standardOutput = output
        let feed = Pipe()
        process.standardInput = feed
        try process.run()
        // Written from another thread: curl may answer before it has read it all.
        let writer = Thread { try? feed.fileHandleForWriting.write(contentsOf: Data((input ?? "").utf8)); try? feed.fileHandleForWriting.close() }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        let status = Int(text[text.index(after: text.lastIndex(of: "\n")!)...]) ?? 0
        text.removeSubrange(text.lastIndex(of: "\n")!...)
        return (status, text)
    }

    /// A POST of `body` with the page's headers, less or more what the case changes.
    func post(_ server: PreviewServer, _ route: String, _ body: String, headers: [String: String?] = [:]) throws -> (status: Int, body: String) {
        var sent: [String: String?] = ["Content-Type": "application/json", "X-Facecam-Token": Self.token, "Origin": "http://\(server.address)"]
        sent.merge(headers) { $1 }
        let arguments = sent.compactMap { key, value in value.map { ["-H", "\(key): \($0)"] } }.flatMap { $0 } + ["--data-binary", "@-"]
        return try curl(server, "/people/\(route)", arguments, input: body)
    }

    @Test func theListingAndPicturesAreServed() throws {
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: Desk(), changeToken: nil))
        defer { server.close() }
        let listing = try curl(server, "/people")
        #expect(listing.status == 200)
        #expect(listing.body == #"{"changes":false,"unknown":[{"tracks":[4,2],"picture":"people/2.jpg?v=3","firstSeen":100,"#
            + #""lastSeen":120.5,"zones":["door"]}],"known":[{"name":"Ada \"the\" first","lastSeen":null},{"name":"Grace","lastSeen":90}]}"#
            + "\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-picture-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        let picture = try curl(server, "/people/2.jpg?v=3", ["-D", "-", "-o", file.path])
        #expect(picture.status == 200 && picture.body.lowercased().contains("content-type: image/jpeg"))
        #expect(try Data(contentsOf: file) == Data([0xFF, 0xD8, 0xFF, 0xD9]))
        #expect(try curl(server, "/people/7.jpg").status == 404)
        #expect(try curl(server, "/").body.contains("id=\"people\""))
    }

    @Test func aPageWithoutThePanelHasNoneOfItsRoutes() throws {
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera")
        defer { server.close() }
        #expect(try curl(server, "/people").status == 404)
        #expect(try post(server, "name", #"{"tracks":[2],"name":"Lin"}"#).status == 405)
        #expect(try !curl(server, "/").body.contains("id=\"people\""))
    }

    @Test func aChangeWithTheTokenFromThePageIsMade() throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        #expect(try post(server, "name", #"{"tracks":[4,2],"name":"Lin"}"#) == (200, "{\"message\":\"ok\"}\n"))
        #expect(try post(server, "dismiss", #"{"tracks":[4]}"#).status == 200)
        // curl sends no Origin, as clients other than browsers do not: the token alone decides.
        #expect(try post(server, "rename", #"{"name":"Lin","to":"Lin Y"}"#, headers: ["Origin": nil]).status == 200)
        #expect(try post(server, "forget", #"{"name":"Grace"}"#, headers: ["Sec-Fetch-Site": "same-origin"]).status == 200)
        #expect(desk.changes.withLock { $0 } == [.name(tracks: [4, 2], as: "Lin"), .dismiss(tracks: [4]), .rename("Lin", to: "Lin Y"), .forget("Grace")])
        #expect(try curl(server, "/people").body.hasPrefix("{\"changes\":true,"))
    }

    @Test(arguments: [
        // No token, a wrong one, one of another length.
        (["X-Facecam-Token": nil], 403, "needs the token"),
        (["X-Facecam-Token": "0123456789abcdef0124"], 403, "needs the token"),
        (["X-Facecam-Token": "0123"], 403, "needs the token"),
        // Another site's page, by its Origin or by what the browser says of it.
        (["Origin": "http://evil.example"], 403, "another origin (http://evil.example)"),
        (["Origin": "null"], 403, "another origin"),
        (["Sec-Fetch-Site": "cross-site"], 403, "another site"),
        (["Sec-Fetch-Site": "same-site"], 403, "another site"),
        // A form's body, which another site could send without asking.
        (["Content-Type": "application/x-www-form-urlencoded"], 415, "JSON"),
        (["Content-Type": "text/plain"], 415, "JSON"),
    ] as [([String: String?], Int, String)])
    func aChangeFromElsewhereIsRefusedAndNotMade(headers: [String: String?], status: Int, reason: String) throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        let answer = try post(server, "name", #"{"tracks":[2],"name":"Lin"}"#, headers: headers)
        #expect(answer.status == status && answer.body.contains(reason), "\(answer)")
        #expect(desk.changes.withLock { $0 }.isEmpty)
    }

    @Test(arguments: [
        (#"{"tracks":[2],"name":"Lin""#, "not a JSON object"),
        (#"["Lin"]"#, "not a JSON object"),
        (#"{"tracks":[],"name":"Lin"}"#, "takes tracks (numbers) and name"),
        (#"{"tracks":["2"],"name":"Lin"}"#, "not a JSON object"),
        (#"{"tracks":[2],"name":"Lin","to":"X"}"#, "takes tracks (numbers) and name"),
        (#"{"name":"Lin"}"#, "takes tracks (numbers) and name"),
    ])
    func aBodyThatIsNotAChangeIs400(body: String, reason: String) throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        let answer = try post(server, "name", body)
        #expect(answer.status == 400 && answer.body.contains(reason), "\(answer)")
        #expect(desk.changes.withLock { $0 }.isEmpty)
    }

    @Test func anOversizedBodyIs413AndAReadOnlyPanel403() throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        let name = String(repeating: "x", count: PeoplePanel.maximumBody)
        let large = try post(server, "name", #"{"tracks":[2],"name":"\#(name)"}"#)
        #expect(large.status == 413 && large.body.contains("at most 4096 bytes"))
        // Far larger, sent in pieces: counted, not kept.
        let huge = try post(server, "name", String(repeating: " ", count: 5_000_000))
        #expect(huge.status == 413)
        let readOnly = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: nil))
        defer { readOnly.close() }
        let refused = try post(readOnly, "forget", #"{"name":"Grace"}"#)
        #expect(refused.status == 403 && refused.body.contains("read-only: start live with --serve-allow-changes"))
        #expect(desk.changes.withLock { $0 }.isEmpty)
    }

    @Test(arguments: [
        (PeopleChangeOutcome.refused("'A\\u0007' cannot be a name"), 400),
        (.conflict("those faces were named already"), 409),
        (.failed("the gallery failed"), 500),
    ])
    func theDesksAnswerIsTheStatus(outcome: PeopleChangeOutcome, status: Int) throws {
        let server = try PreviewServer(
            address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: Desk(outcome: outcome), changeToken: Self.token))
        defer { server.close() }
        #expect(try post(server, "name", #"{"tracks":[2],"name":"Lin"}"#).status == status)
    }

    /// DNS rebinding: another site's name pointed at this machine makes the browser send that name as Host (and as the
    /// origin, which then matches). The panel answers only to addresses, localhost and the machine's name; the preview
    /// itself is unchanged.
    @Test func thePanelAnswersOnlyToThisMachinesNames() throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        let host = "evil.example:\(server.address.port)"
        let read = try curl(server, "/people", ["-H", "Host: \(host)"])
        #expect(read.status == 403 && read.body.contains("not to 'evil.example'"), "\(read)")
        #expect(try curl(server, "/people/2.jpg", ["-H", "Host: \(host)"]).status == 403)
        #expect(try post(server, "name", #"{"tracks":[2],"name":"Lin"}"#, headers: ["Host": host, "Origin": "http://\(host)"]).status == 403)
        #expect(try curl(server, "/", ["-H", "Host: \(host)"]).status == 200)
        #expect(try curl(server, "/people", ["-H", "Host: localhost:\(server.address.port)"]).status == 200)
        #expect(desk.changes.withLock { $0 }.isEmpty)
        for (authority, name) in [("127.0.0.1:80", "127.0.0.1"), ("[::1]:8080", "::1"), ("cam.local", "cam.local"), ("[fe80::1]", "fe80::1")] {
            #expect(PeoplePanel.hostName(authority) == name)
        }
        #expect(PeoplePanel.isThisMachine("10.1.2.3") && PeoplePanel.isThisMachine("::1") && PeoplePanel.isThisMachine("LOCALHOST"))
        #expect(!PeoplePanel.isThisMachine("evil.example") && !PeoplePanel.isThisMachine("127.0.0.1.evil.example"))
    }

    /// Behind a proxy that adds HTTPS the origin's scheme differs; one that passes its own upstream Host says the
    /// original in X-Forwarded-Host. Both are the page's own origin.
    @Test func aChangeThroughAProxyIsTheSameOrigin() throws {
        let desk = Desk()
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        defer { server.close() }
        let body = #"{"tracks":[2],"name":"Lin"}"#
        #expect(try post(server, "name", body, headers: ["Origin": "https://\(server.address)"]).status == 200)
        #expect(try post(server, "name", body, headers: ["Origin": "https://cam.example", "X-Forwarded-Host": "cam.example"]).status == 200)
        #expect(try post(server, "name", body, headers: ["Origin": "https://cam.example"]).status == 403)
        #expect(desk.changes.withLock { $0 }.count == 2)
    }

    /// A change waiting on the gallery when the server closes is made and answered before the server's loop stops.
    @Test func aChangeUnderWayWhenTheServerClosesIsAnswered() throws {
        let gate = DispatchSemaphore(value: 0)
        let desk = Desk(gate: gate)
        let server = try PreviewServer(address: ServeAddress(port: 0), source: "camera", people: PeoplePanel(desk: desk, changeToken: Self.token))
        let answer = Mutex<(status: Int, body: String)?>(nil)
        let asked = Thread { answer.withLock { $0 = try? self.post(server, "forget", #"{"name":"Grace"}"#) } }
        asked.start()
        let deadline = Date(timeIntervalSinceNow: 60)
        while desk.changes.withLock({ $0.isEmpty }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let closed = Mutex(false)
        let closing = Thread {
            server.close()
            closed.withLock { $0 = true }
        }
        closing.start()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!closed.withLock { $0 })  // waits for the change
        gate.signal()
        while answer.withLock({ $0 == nil }) || !closed.withLock({ $0 }), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(answer.withLock { $0?.status } == 200 && closed.withLock { $0 })
    }

    @Test func tokensAreCheckedAndWrittenForTheirOwnerOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-token-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("run/serve.token").path
        let token = ChangeToken.generate()
        #expect(token.count == 64 && token != ChangeToken.generate())
        try ChangeToken.write(token, to: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("run").path)
        #expect(attributes[.posixPermissions] as? Int == 0o600 && folderAttributes[.posixPermissions] as? Int == 0o700)
        #expect(try ChangeToken.read(file: path) == token)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(throws: ChangeToken.Failure(description: "--serve-token-file \(path): others than its owner may read it: chmod 600 it")) {
            try ChangeToken.read(file: path)
        }
        for bad in ["short", "with a space in it!!", String(repeating: "x", count: 257), "tab\there-0123456789"] {
            #expect(throws: ChangeToken.Failure.self) { try ChangeToken.checked(bad, from: "test") }
        }
        let address = ServeAddress(port: 8080)
        #expect(ChangeToken.defaultPath(address: address, environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/a"])
            == "/run/user/1000/facecam/serve-127.0.0.1-8080.token")
        #expect(ChangeToken.defaultPath(address: ServeAddress(host: "::1", port: 80), environment: ["HOME": "/home/a"])
            == "/home/a/.local/state/facecam/serve-__1-80.token")
        #expect(ChangeToken.defaultPath(address: address, environment: [:]) == nil)
    }
}
