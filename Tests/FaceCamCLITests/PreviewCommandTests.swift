import Foundation
import Testing

/// live --serve and --show, end to end: the built binary, a real HTTP client (curl), Debian's
/// Chromium, a real X server (Xvfb), and screenshots checked by OpenCV called directly
/// (Tests/Reference/preview_check.py).
@Suite(.serialized)
struct PreviewCommandTests {
    @Test func everyRouteAnswersARealHTTPClient() throws {
        let server = try Served(["--source", "Fixtures/video/pan-zoom.avi", "--realtime", "--loop"] + readingOnly)
        let page = try curl("-s", "-i", server.url)
        #expect(page.stdout.hasPrefix("HTTP/1.1 200 OK"))
        #expect(page.stdout.contains("Content-Type: text/html; charset=utf-8"))
        #expect(page.stdout.contains("src=\"stream.mjpg\"") && page.stdout.contains("EventSource(\"events\")"))

        let snapshot = try server.snapshot()
        #expect(Array(snapshot.prefix(3)) == [0xFF, 0xD8, 0xFF] && Array(snapshot.suffix(2)) == [0xFF, 0xD9])

        // Ten parts of the MJPEG stream: each a whole JPEG of the length it announces.
        let stream = try take("parts", server.url + "stream.mjpg", 10)
        let parts = multipartJPEGs(stream.stdoutBytes)
        #expect(stream.status == 0 && parts.count >= 10, "\(parts.count) parts: \(stream.stderr)")
        #expect(parts.allSatisfy { $0.prefix(2) == [0xFF, 0xD8] && $0.suffix(2) == [0xFF, 0xD9] })

        let events = try take("records", server.url + "events", 10)
        let records = events.lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }
        #expect(events.status == 0 && records.count >= 10, "\(events.stderr)")
        #expect(server.waitForMetric("facecam_frames_processed_total", atLeast: 20, timeout: 60))

        let metrics = try curl("-s", server.url + "metrics").stdout
        let values = prometheusValues(metrics)
        for name in ["facecam_frames_captured_total", "facecam_frames_processed_total", "facecam_frames_dropped_total",
                     "facecam_frames_missed_total", "facecam_faces_detected_total", "facecam_latency_seconds_count"] {
            #expect(values[name] != nil, "\(name) missing from /metrics")
        }
        // One latency per processed frame; the two are counted at two moments of a frame's processing, so
        // a scrape between them sees one frame in one and not yet in the other.
        let latencies = try #require(values["facecam_latency_seconds_count"]), processed = try #require(values["facecam_frames_processed_total"])
        #expect(abs(latencies - processed) <= 1, "\(latencies) latencies, \(processed) frames processed")
        #expect(metrics.contains("# TYPE facecam_latency_seconds histogram"))

        let post = try curl("-s", "-i", "-X", "POST", "--data", "x", server.url)
        #expect(post.stdout.hasPrefix("HTTP/1.1 405") && post.stdout.contains("Allow: GET, HEAD"))
        #expect(try curl("-s", "-i", "-X", "DELETE", server.url + "snapshot.jpg").stdout.hasPrefix("HTTP/1.1 405"))
        #expect(try curl("-s", "-i", server.url + "index.html").stdout.hasPrefix("HTTP/1.1 404"))
        #expect(try curl("-s", "-i", "--path-as-is", server.url + "../../etc/passwd").stdout.hasPrefix("HTTP/1.1 404"))
        let head = try curl("-s", "-I", server.url + "snapshot.jpg")
        #expect(head.stdout.hasPrefix("HTTP/1.1 200") && head.stdout.contains("Content-Type: image/jpeg"))

        // SIGINT stops the server with the rest; every processed frame's record is on stdout, and each
        // record /events carried is one of them, to the byte.
        let run = try server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(summaryCounts(run), "\(run.stderr)")
        #expect(run.lines.count == counts.processed && run.stdout.hasSuffix("\n"))
        let written = Set(run.lines)
        #expect(records.allSatisfy(written.contains))
    }

    @Test func stalledClientsSlowNeitherTheLogNorAnotherViewer() throws {
        // A detector that costs a few milliseconds a frame: the frames dropped are then the server's doing,
        // not the load of the tests running beside this one.
        let server = try Served(
            ["--source", "Fixtures/video/pan-zoom.avi", "--realtime", "--loop", "--duration", "12"] + readingOnly)
        _ = try server.snapshot()
        let viewer = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-N", "--max-time", "5", server.url + "stream.mjpg"])
        #expect(server.waitForMetric("facecam_preview_streams", atLeast: 1))
        let processedBefore = try server.metric("facecam_frames_processed_total")
        // Twenty clients that take nothing: fifteen fill the cap of 16 with the viewer, five are refused.
        let stalled = try BackgroundProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["Tests/Preview/stalled_clients.py", "127.0.0.1", String(server.port), "20", "5"])
        #expect(server.waitForMetric("facecam_preview_parts_skipped_total", atLeast: 20, timeout: 60))
        let statuses = try stalled.wait()
        #expect(statuses.stdout.contains("{\"statuses\": {\"200\": 15, \"503\": 5}}"), "\(statuses.stdout) \(statuses.stderr)")
        let watched = multipartJPEGs(try viewer.wait().stdoutBytes)
        let processedDuring = try server.metric("facecam_frames_processed_total") - processedBefore
        // The viewer kept up while the others stalled: it got most of the frames processed meanwhile (counted rather
        // than expected of the clock, which a loaded machine slows). A server that waited on the stalled clients would
        // send it nothing for the 5 s they stall.
        #expect(Double(watched.count) >= processedDuring / 2, "the viewer got \(watched.count) frames of \(processedDuring)")
        let run = try server.stop(waitingForTheEnd: true)
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(summaryCounts(run))
        // Most frames detected and logged, even on a loaded machine. A server that waited on the stalled clients would
        // hold the frames up for the 5 s they stall: more than half would be dropped.
        #expect(counts.captured > 0 && counts.dropped <= counts.captured / 4, "\(counts)")
        #expect(run.lines.count == counts.processed)
    }

    @Test func thePageInChromiumShowsTheStreamWithTheFaceOutlined() throws {
        let clip = try stillClip()
        let server = try Served(["--source", clip.path, "--realtime", "--loop"])
        _ = try server.snapshot()
        let screenshot = screenshots.appendingPathComponent("serve-page.png")
        let shot = try chromium("--window-size=960,640", "--screenshot=\(screenshot.path)", server.url)
        #expect(FileManager.default.fileExists(atPath: screenshot.path), "\(shot.stderr)")
        let check = try previewCheck(screenshot)
        #expect(check.outline != nil, "no green outline in the page's screenshot")
        #expect(check.overlap >= 0.5, "the outline is not on the face OpenCV finds in the screenshot: \(check)")
        #expect(check.spread > 20, "the stream looks blank: \(check)")
        // The faces table (from /events) and the counters (from /metrics) were filled in.
        // Chromium stops the page after its timeout (the stream never ends loading); on a loaded
        // machine it may start too slowly to see them in 5 s, so each try waits twice as long, up to 40 s, and
        // the tries go on for 90 s (a Chromium that ends early, before the page's first poll, is tried again).
        let filled = [#"<tbody id="faces"><tr><td>[0-9]+</td>"#, #"<td id="processed">[0-9]+</td>"#]
        var dom = ""
        let giveUp = Date().addingTimeInterval(90)
        var milliseconds = 5000
        repeat {
            dom = try chromium("--dump-dom", server.url, stoppingAfter: milliseconds).stdout
            if filled.allSatisfy({ dom.range(of: $0, options: .regularExpression) != nil }) { break }
            milliseconds = min(2 * milliseconds, 40000)
        } while Date() < giveUp
        for part in filled {
            #expect(dom.range(of: part, options: .regularExpression) != nil, "\(part) is not in the page: \(dom)")
        }
        #expect(try server.stop().status == 0)
    }

    @Test func aRedactedPreviewShowsNoFace() throws {
        let clip = try stillClip()
        let server = try Served(["--source", clip.path, "--realtime", "--loop", "--redact", "solid"])
        let snapshot = try temporaryDirectory("redacted-snapshot").appendingPathComponent("snapshot.jpg")
        defer { try? FileManager.default.removeItem(at: snapshot.deletingLastPathComponent()) }
        try Data(try server.snapshot()).write(to: snapshot)
        let check = try previewCheck(snapshot)
        #expect(check.faces == 0 && check.outline == nil, "\(check)")
        let run = try server.stop()
        #expect(run.status == 0)
        // The results still have the face: only the preview hides it.
        #expect(try run.records().allSatisfy { ($0["faces"] as? [Any])?.count == 1 })
    }

    @Test func theWindowUnderXvfbShowsThePreviewAndQuitsOnQ() throws {
        let display = try VirtualDisplay()
        let clip = try stillClip()
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display.name
        let live = try BackgroundProcess(
            facecamBinary, ["live", "--source", clip.path, "--realtime", "--loop", "--show"], environment: environment)
        // Screenshots until the window shows a frame with its outline (Qt takes a moment to map it).
        let screenshot = screenshots.appendingPathComponent("show-window.png")
        var check = PreviewCheck(outline: nil, faces: 0, overlap: 0, spread: 0)
        for _ in 0..<40 where check.outline == nil && live.isRunning {
            Thread.sleep(forTimeInterval: 0.5)
            try display.screenshot(to: screenshot)
            check = try previewCheck(screenshot)
        }
        #expect(check.overlap >= 0.5, "the window's outline is not on the face OpenCV finds: \(check)")
        #expect(check.spread > 20)
        let key = try run(URL(fileURLWithPath: "/usr/bin/xdotool"), ["search", "--name", "^facecam: ", "key", "q"],
                          environment: environment)
        #expect(key.status == 0, "\(key.stderr)")
        let result = try live.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result), "\(result.stderr)")
        #expect(result.lines.count == counts.processed && counts.processed > 0)
    }

    @Test func facecamLinksNoHighguiAndNoQt() throws {
        // highgui (and Qt) is loaded by --show alone, so that a headless machine needs neither.
        let libraries = try run(URL(fileURLWithPath: "/usr/bin/ldd"), [facecamBinary.path])
        #expect(libraries.status == 0 && libraries.stdout.contains("libopencv_core"))
        #expect(!libraries.stdout.contains("highgui") && !libraries.stdout.contains("Qt5"), "\(libraries.stdout)")
    }

    @Test(arguments: [nil, ":97"])
    func showWithoutADisplayIsOneLineAndStatus64(display: String?) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        let process = try BackgroundProcess(
            facecamBinary, ["live", "--source", "Fixtures/video/pan-zoom.avi", "--show"], environment: environment)
        let result = try process.wait()
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines.count == 1, "\(result.stderr)")
        let reason = display == nil ? "DISPLAY is not set" : "no X server answers at DISPLAY=:97 (/tmp/.X11-unix/X97)"
        #expect(result.stderr == "facecam: --show cannot open a window: \(reason): run it in a desktop session, "
            + "or watch in a browser with --serve\n")
    }

    /// 0.0.0.0 serves every network: facecam lists the addresses it is reachable at and warns that
    /// anyone who can reach the port sees the camera.
    @Test func aWildcardAddressListsWhereItIsReachableAndWarns() throws {
        let result = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--serve", "0.0.0.0:0", "--duration", "1")
        #expect(result.status == 0, "\(result.stderr)")
        let serving = try #require(result.errorLines.first { $0.hasPrefix("facecam: serving the preview at ") })
        let port = try #require(serving.range(of: #"http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression), "\(serving)")
        #expect(!serving.contains("0.0.0.0"), "\(serving)")
        let number = serving[port].dropFirst("http://127.0.0.1:".count).dropLast()
        #expect(result.errorLines.contains(
            "facecam: warning: the preview is open to every network this machine is on: anyone who can reach port \(number) "
                + "sees the camera; --serve 127.0.0.1:\(number) keeps it on this machine"), "\(result.stderr)")
    }

    @Test func aPortInUseIsOneLineAndStatus1() throws {
        let first = try Served(["--source", "Fixtures/video/pan-zoom.avi", "--realtime", "--loop"])
        let second = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--serve", "127.0.0.1:\(first.port)")
        #expect(second.status == 1)
        #expect(second.stdout.isEmpty)
        #expect(second.errorLines == [
            "facecam: cannot serve the preview on 127.0.0.1:\(first.port): Address already in use; "
                + "name another [HOST:]PORT with --serve (port 0 takes a free one)",
        ], "\(second.stderr)")
        #expect(try first.stop().status == 0)
    }

}

/// Where the tests leave their screenshots (docs/webcam.md shows the page's).
let screenshots: URL = {
    let url = repository.appendingPathComponent(".build/screenshots")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// facecam live --serve on a free port, with the address it printed.
private final class Served {
    let process: BackgroundProcess
    let url: String
    let port: Int

    init(_ arguments: [String]) throws {
        process = try BackgroundProcess(facecamBinary, ["live", "--serve", "0"] + arguments)
        let line = try #require(process.waitForErrorLine(containing: "serving the preview at "), "\(process.standardError)")
        url = String(line[line.range(of: "http://")!.lowerBound...])
        port = try #require(Int(url.split(separator: ":").last!.dropLast()))
    }

    /// The newest preview, once a frame has been processed.
    func snapshot() throws -> [UInt8] {
        for _ in 0..<100 {
            let response = try curlBytes("-s", "-f", url + "snapshot.jpg")
            if !response.isEmpty { return response }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw PreviewTestError("no snapshot within 10 s: \(process.standardError)")
    }

    /// Waits until /metrics reports `name` at `atLeast` or more.
    func waitForMetric(_ name: String, atLeast minimum: Double, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let text = try? curl("-s", url + "metrics").stdout, let value = prometheusValues(text)[name], value >= minimum {
                return true
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// A value /metrics reports now.
    func metric(_ name: String) throws -> Double {
        try #require(prometheusValues(try curl("-s", url + "metrics").stdout)[name], "\(name) is not in /metrics")
    }

    /// SIGINT, or with `waitingForTheEnd` the run's own end (--duration), and what it printed.
    func stop(waitingForTheEnd: Bool = false) throws -> Run {
        if !waitingForTheEnd { process.signal(SIGINT) }
        return try process.wait()
    }
}

private struct PreviewTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

private func curl(_ arguments: String...) throws -> Run {
    try run(URL(fileURLWithPath: "/usr/bin/curl"), arguments)
}

/// Tests/Preview/take.py: COUNT parts or records of a stream, however long a loaded machine takes to make them. In a
/// process of its own (an environment given), not a reference interpreter, which answers in text: the parts are bytes.
private func take(_ kind: String, _ url: String, _ count: Int) throws -> Run {
    try run(URL(fileURLWithPath: "/usr/bin/python3"), ["Tests/Preview/take.py", kind, url, String(count)],
            environment: ProcessInfo.processInfo.environment)
}

private func curlBytes(_ arguments: String...) throws -> [UInt8] {
    try run(URL(fileURLWithPath: "/usr/bin/curl"), arguments).stdoutBytes
}

/// Headless Chromium on `url` for five seconds (the stream never finishes loading).
private func chromium(_ arguments: String..., stoppingAfter milliseconds: Int = 5000) throws -> Run {
    try run(URL(fileURLWithPath: "/usr/bin/timeout"), [
        "\(milliseconds / 1000 + 60)", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--timeout=\(milliseconds)",
    ] + arguments)
}

/// The JPEG parts of a multipart/x-mixed-replace body, each cut at the Content-Length it announces.
private func multipartJPEGs(_ body: [UInt8]) -> [[UInt8]] {
    let marker = Array("Content-Length: ".utf8)
    var parts: [[UInt8]] = []
    var index = 0
    while index + marker.count < body.count {
        guard body[index..<(index + marker.count)].elementsEqual(marker) else {
            index += 1
            continue
        }
        var cursor = index + marker.count
        var length = 0
        while cursor < body.count, let digit = Int(String(UnicodeScalar(body[cursor]))) {
            length = length * 10 + digit
            cursor += 1
        }
        let start = cursor + 4 // "\r\n\r\n"
        guard start + length <= body.count else { break }
        parts.append(Array(body[start..<(start + length)]))
        index = start + length
    }
    return parts
}

/// Samples of Prometheus' text format by name (labels included in the name).
private func prometheusValues(_ text: String) -> [String: Double] {
    var values: [String: Double] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
        values[String(line[..<space])] = value
    }
    return values
}

/// What Tests/Reference/preview_check.py says of a screenshot.
private struct PreviewCheck: CustomStringConvertible {
    var outline: [Int]?
    var faces: Int
    var overlap: Double
    var spread: Double

    var description: String { "outline \(outline ?? []), \(faces) faces, IoU \(overlap), spread \(spread)" }
}

private func previewCheck(_ screenshot: URL) throws -> PreviewCheck {
    let result = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["Tests/Reference/preview_check.py", screenshot.path])
    guard result.status == 0,
          let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
        throw PreviewTestError("preview_check.py: \(result.stderr)")
    }
    return PreviewCheck(
        outline: object["outline"] as? [Int], faces: (object["faces"] as? [Any])?.count ?? 0,
        overlap: (object["overlap"] as? Double) ?? 0, spread: (object["picture_spread"] as? Double) ?? 0)
}

/// A 3-second 10 frames/s clip of one still photograph with one face (Fixtures/images/grace_hopper.jpg),
/// made with ffmpeg once per test run, so that a screenshot at any moment shows the face.
private func stillClip() throws -> URL {
    let clip = screenshots.appendingPathComponent("still-face.avi")
    if FileManager.default.fileExists(atPath: clip.path) { return clip }
    let made = try run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), [
        "-loglevel", "error", "-y", "-loop", "1", "-framerate", "10", "-i", fixture("images/grace_hopper.jpg"),
        "-frames:v", "30", "-c:v", "mjpeg", "-q:v", "3", clip.path,
    ])
    guard made.status == 0 else { throw PreviewTestError("ffmpeg: \(made.stderr)") }
    return clip
}

/// Xvfb on a display number nothing else uses, stopped when the value goes.
private final class VirtualDisplay {
    let name: String
    private let server: BackgroundProcess

    init() throws {
        guard let number = (90..<200).first(where: {
            !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)") && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
        }) else { throw PreviewTestError("no free X display number") }
        name = ":\(number)"
        server = try BackgroundProcess(URL(fileURLWithPath: "/usr/bin/Xvfb"), [name, "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
        // Its socket is there once it takes connections: waited for while it runs, however long a loaded machine takes
        // (5 s was once too short beside the other tests), up to a minute.
        let deadline = Date(timeIntervalSinceNow: 60)
        while !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"), server.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") else {
            server.signal(SIGTERM)
            throw PreviewTestError("Xvfb \(name) did not start: \(server.standardError)")
        }
    }

    deinit { server.signal(SIGTERM) }

    func screenshot(to file: URL) throws {
        let grabbed = try run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), [
            "-loglevel", "error", "-y", "-f", "x11grab", "-video_size", "1024x768", "-i", name, "-frames:v", "1", file.path,
        ])
        guard grabbed.status == 0 else { throw PreviewTestError("ffmpeg x11grab: \(grabbed.stderr)") }
    }
}
