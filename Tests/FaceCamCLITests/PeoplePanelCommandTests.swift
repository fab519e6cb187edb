import Foundation
import Testing

private let portraits = repository.deletingLastPathComponent().appendingPathComponent("shared/data/faces/face_recognition_examples")

/// The people panel as its user meets it: `live --serve --recognize --serve-allow-changes` on a clip of two enrolled
/// people and one who is not, the page in Debian's Chromium driven through chromedriver (the WebDriver protocol, which
/// Selenium speaks), the person named there, and their next appearance named, with their MQTT sensor on a real broker.
struct PeoplePanelCommandTests {
    static let faces = portraits
    /// The clip's frames per loop, and where the unknown person is in each (Tests/Preview/people_clip.py).
    static let loop = 84
    static let unknownFrames = 56..<76

    /// The port live serves on, from its standard error.
    static func port(of live: BackgroundProcess) throws -> Int {
        try #require(live.waitForErrorLine(containing: "serving the preview at")?.split(separator: ":").last
            .flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))) }, "\(live.standardError)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: portraits.path), "../shared/data/faces is absent"))
    func anUnknownPersonNamedOnThePageIsNamedAtTheirNextAppearance() throws {
        let directory = try temporaryDirectory("people-panel")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("clip.avi").path
        let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), [fixture("../Tests/Preview/people_clip.py"), Self.faces.path, clip])
        try #require(made.status == 0, "\(made.stderr)")
        let gallery = try RecognitionCommandTests.enrolledGallery(directory, people: [
            ("Obama", Self.faces.appendingPathComponent("obama/obama.jpg").path), ("Biden", Self.faces.appendingPathComponent("biden/biden.jpg").path)])
        let broker = try MosquittoBroker()
        try broker.start()
        let subscriber = try MQTTSubscriber(port: broker.port)
        // The token is made at the start, into XDG_RUNTIME_DIR.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["FACECAM_SERVE_TOKEN"] = nil
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", clip, "--loop", "--realtime", "--recognize", "--gallery", gallery, "--serve", "0",
            "--serve-allow-changes", "--mqtt", broker.url, "--name", "door"], environment: environment)
        let line = try #require(live.waitForErrorLine(containing: "takes changes with the token in"), "\(live.standardError)")
        let port = try Self.port(of: live)
        let tokenFile = directory.appendingPathComponent("facecam/serve-127.0.0.1-\(port).token").path
        #expect(line.contains(tokenFile))
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .newlines)

        let browser = try WebDriver()
        try browser.open("http://127.0.0.1:\(port)/#token=\(token)")
        // The unknown person's best shot, drawn (its picture decoded), with a field for their name.
        let shown = browser.waitFor("""
            const figures = [...document.querySelectorAll("#unknown figure")];
            return figures.length === 1 && figures[0].querySelector("img").naturalWidth > 0 && !!figures[0].querySelector("input");
            """)
        #expect(shown, "\(live.standardError)")
        let known = try browser.script("return [...document.querySelectorAll('#known tr')].map((row) => row.cells[0].textContent)")
        #expect(known as? [String] == ["Biden", "Obama"])
        // The address no longer shows the token once the page has taken it.
        #expect(try browser.script("return location.hash") as? String == "")
        try browser.type("Kit", into: "#unknown figure input")
        try browser.click(try browser.element("#unknown figure button"))
        let message = browser.waitFor("return document.getElementById('message').textContent.includes(\"enrolled as 'Kit'\")")
        #expect(message, "\(String(describing: try? browser.script("return document.getElementById('message').textContent")))")
        #expect(browser.waitFor("return document.querySelectorAll('#unknown figure').length === 0"))
        #expect(live.waitForErrorLine(containing: "changed: 3 people enrolled now") != nil, "\(live.standardError)")
        #expect(subscriber.wait(timeout: 60) { $0.contains { $0.topic == "homeassistant/binary_sensor/facecam_door/person_Kit/config" } })
        #expect(subscriber.wait(timeout: 60) { $0.contains { $0.topic == "facecam/door/person/Kit" && $0.text == "ON" } },
                "\(live.standardError)")
        // The same server refuses, as an HTTP client meets it: no token, a name with a control character, too large.
        for (headers, body, status) in [
            ([String](), #"{"tracks":[1],"name":"Ann"}"#, "403"),
            (["-H", "X-Facecam-Token: \(token)"], #"{"name":"Obama","to":"Barack\u0007"}"#, "400"),
            (["-H", "X-Facecam-Token: \(token)"], #"{"name":"\#(String(repeating: "x", count: 5000))"}"#, "413"),
        ] {
            let answer = try run(URL(fileURLWithPath: "/usr/bin/curl"), [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json", "--data-binary", body,
                "http://127.0.0.1:\(port)/people/\(body.contains("\"to\"") ? "rename" : "name")"] + headers)
            #expect(answer.stdout == status, "\(body.prefix(40)): \(answer.stdout)")
        }
        live.signal(SIGINT)
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        // Named where the clip shows him, and only there; unknown there before the naming.
        let faces = try result.records().flatMap { record in
            (record["faces"] as? [[String: Any]] ?? []).map { (frame: record["frame"] as! Int, identity: $0["identity"] as? String) }
        }
        let his = faces.filter { Self.unknownFrames.contains($0.frame % Self.loop) }
        #expect(faces.filter { $0.identity == "Kit" }.allSatisfy { Self.unknownFrames.contains($0.frame % Self.loop) })
        #expect(his.first?.identity == nil && his.last?.identity == "Kit", "\(his.map(\.identity))")
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
        let people = try facecam("people", "--gallery", gallery)
        #expect(people.stdout.contains("Kit: "), "\(people.stdout)")
    }
}

extension PeoplePanelCommandTests {
    /// Fixtures/readme/people-panel.png, from fixtures that may be shown: Collins enrolled, Hopper not, in a clip where one
    /// leaves and the other comes; the token from the environment, so that no token file is written.
    @Test func thePageAsTheDocsShowIt() throws {
        let directory = try temporaryDirectory("people-panel-docs")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = try RecognitionCommandTests.enrolledGallery(directory, people: [("Collins", fixture("images/astronaut.png"))])
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        environment["FACECAM_SERVE_TOKEN"] = "a-token-of-the-tests-own"
        let live = try BackgroundProcess(facecamBinary, [
            "live", "--source", fixture("video/leave-enter.avi"), "--loop", "--realtime", "--recognize", "--gallery", gallery,
            "--serve", "0", "--serve-allow-changes"], environment: environment)
        #expect(live.waitForErrorLine(containing: "takes changes with the token of FACECAM_SERVE_TOKEN") != nil, "\(live.standardError)")
        let port = try Self.port(of: live)
        let browser = try WebDriver()
        try browser.open("http://127.0.0.1:\(port)/#token=a-token-of-the-tests-own")
        #expect(browser.waitFor("""
            const figures = [...document.querySelectorAll("#unknown figure")];
            return figures.length === 1 && figures[0].querySelector("img").naturalWidth > 0
              && [...document.querySelectorAll("#known tr")].some((row) => row.cells[1].textContent !== "not since the start");
            """), "\(live.standardError)")
        // For the picture: a best shot of her whole face, which replaces the one of her coming in at the edge once she
        // is described again (a wait, not a check: how the best shot is chosen is PeopleBoardTests' to check).
        _ = browser.waitFor("return !/[?]v=1$/.test(document.querySelector('#unknown figure img').src)", timeout: 15)
        try browser.type("Grace Hopper", into: "#unknown figure input")
        try browser.screenshot(to: screenshots.appendingPathComponent("people-panel.png"))
        live.signal(SIGINT)
        #expect(try live.wait().status == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("facecam").path))
    }
}

extension PeoplePanelCommandTests {
    /// A token file others may read is refused before anything starts; changes allowed beyond this machine are warned of.
    @Test func aTokenFileOthersMayReadIsRefusedAndAWideAddressWarns() throws {
        let directory = try temporaryDirectory("people-panel-token")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = try RecognitionCommandTests.enrolledGallery(directory, people: [("Collins", fixture("images/astronaut.png"))])
        let tokenFile = directory.appendingPathComponent("token").path
        try "0123456789abcdef-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokenFile)
        let arguments = ["live", "--source", fixture("video/leave-enter.avi"), "--frames", "3", "--recognize", "--gallery", gallery,
                         "--serve-allow-changes", "--serve-token-file", tokenFile]
        // Refused before any work: the output device, which cannot be opened, is never tried, nor is a detector made.
        let exposed = try run(facecamBinary, arguments + ["--serve", "0", "--output-device", directory.appendingPathComponent("no-device").path])
        #expect(exposed.status == 64 && exposed.stdout.isEmpty)
        #expect(exposed.errorLines == ["facecam: --serve-token-file \(tokenFile): others than its owner may read it: chmod 600 it"])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        let wide = try run(facecamBinary, arguments + ["--serve", "0.0.0.0:0"])
        #expect(wide.status == 0, "\(wide.stderr)")
        #expect(wide.errorLines.contains { $0.hasPrefix("facecam: warning: --serve-allow-changes on 0.0.0.0:") && $0.contains("can change the gallery") })
        #expect(wide.errorLines.contains { $0.hasSuffix("takes changes with the token of \(tokenFile)") }, "\(wide.stderr)")
    }
}

/// Chromium through chromedriver: a session over the W3C WebDriver protocol, with curl as its HTTP client.
final class WebDriver {
    private let driver: BackgroundProcess
    private let base: String
    private var session = ""

    init() throws {
        let port = freeLoopbackPort()
        driver = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/chromedriver"), ["--port=\(port)"])
        base = "http://127.0.0.1:\(port)"
        try #require(waitUntilListening(port: port), "chromedriver did not start: \(driver.standardError)")
        let options: [String: Any] = [
            "binary": "/usr/bin/chromium",
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1000,1000"],
        ]
        let created = try call("POST", "/session", ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        session = try #require((created as? [String: Any])?["sessionId"] as? String, "no session: \(String(describing: created))")
    }

    /// The browser closes with its session; the driver is killed with its process (BackgroundProcess: SIGKILL, since
    /// programs started from the tests inherit a mask that blocks SIGTERM).
    deinit {
        _ = try? call("DELETE", "/session/\(session)")
    }

    func open(_ url: String) throws { _ = try call("POST", "/session/\(session)/url", ["url": url]) }

    /// What `body` (a function's body) returns.
    func script(_ body: String) throws -> Any? {
        try call("POST", "/session/\(session)/execute/sync", ["script": body, "args": []])
    }

    /// Whether `body` returned true within `timeout` seconds, asked twice a second.
    func waitFor(_ body: String, timeout: Double = 60) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if (try? script(body)) as? Bool == true { return true }
            Thread.sleep(forTimeInterval: 0.5)
        }
        return false
    }

    func element(_ selector: String) throws -> String {
        let found = try call("POST", "/session/\(session)/element", ["using": "css selector", "value": selector]) as? [String: Any]
        return try #require(found?.values.first as? String, "no \(selector)")
    }

    /// Types into the element `selector` finds. The page draws the panel again every 2 s while it is not being typed in,
    /// so an element found just before that is gone when typed into: it is found again.
    func type(_ text: String, into selector: String) throws {
        for attempt in 1...3 {
            do {
                _ = try call("POST", "/session/\(session)/element/\(try element(selector))/value", ["text": text])
                return
            } catch let error as WebDriverError where error.description.contains("stale element") && attempt < 3 {}
        }
    }

    func click(_ element: String) throws {
        _ = try call("POST", "/session/\(session)/element/\(element)/click", [:])
    }

    func screenshot(to file: URL) throws {
        let encoded = try #require(try call("GET", "/session/\(session)/screenshot") as? String)
        try #require(Data(base64Encoded: encoded)).write(to: file)
    }

    /// The command's value; an error the driver reports fails the test with its message.
    @discardableResult
    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        var arguments = ["-sS", "--max-time", "60", "-X", method, base + path]
        if let body {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)]
        }
        let answer = try run(URL(fileURLWithPath: "/usr/bin/curl"), arguments)
        let object = try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8), options: .fragmentsAllowed) as? [String: Any]
        let value = object?["value"]
        if let failure = value as? [String: Any], let error = failure["error"] as? String {
            throw WebDriverError(description: "\(method) \(path): \(error): \(failure["message"] ?? "")")
        }
        return value is NSNull ? nil : value
    }
}

struct WebDriverError: Error, CustomStringConvertible {
    var description: String
}
