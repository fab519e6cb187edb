import Foundation
import Testing

/// A server started for a test, on a free loopback port; `stop()` ends it (call it in a defer, which
/// also keeps the server alive until then).
final class LocalServer {
    let process = Process()
    let port: Int

    /// Runs Python `code` (or with `code` nil, the script `arguments[0]`), which must print the port
    /// it listens on as its first line.
    init(python code: String?, arguments: [String] = []) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-u"] + (code.map { ["-c", $0] } ?? []) + arguments
        process.currentDirectoryURL = repository
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        port = try #require(Int(String(decoding: line, as: UTF8.self)))
    }

    /// Python's own HTTP server over `directory`.
    static func files(_ directory: String) throws -> LocalServer {
        try LocalServer(python: """
            import functools, http.server, sys
            handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
            handler.func.log_message = lambda *args: None
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            print(server.server_address[1])
            server.serve_forever()
            """, arguments: [directory])
    }

    /// Answers every request with the headers for all of `file` and its first half, then sends nothing more.
    static func stalling(_ file: String) throws -> LocalServer {
        try LocalServer(python: """
            import socket, sys
            data = open(sys.argv[1], "rb").read()
            listener = socket.create_server(("127.0.0.1", 0))
            print(listener.getsockname()[1])
            held = []
            while True:
                connection, _ = listener.accept()
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Type: video/x-msvideo\\r\\nContent-Length: %d\\r\\n\\r\\n"
                                   % len(data) + data[:len(data) // 2])
                held.append(connection)
            """, arguments: [file])
    }

    /// Tests/Reference/rtsp_server.py: `clip` at rtsp://127.0.0.1:PORT/clip.
    static func rtsp(_ clip: String) throws -> LocalServer {
        try LocalServer(python: nil, arguments: [repository.appendingPathComponent("Tests/Reference/rtsp_server.py").path, clip])
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `video` and `live --source` read URLs and standard input as FFmpeg does.
@Suite struct StreamInputTests {
    /// The records of `run`, each without its source.
    func recordsWithoutSource(_ run: Run) throws -> [NSDictionary] {
        try run.records().map { record in
            var record = record
            record["source"] = nil
            return record as NSDictionary
        }
    }

    @Test func aClipServedOverHTTPGivesTheFilesResults() throws {
        let server = try LocalServer.files(fixture("video"))
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/pan-zoom.avi"
        let streamed = try facecam("video", "--quiet", "--every", "4", url)
        let file = try facecam("video", "--quiet", "--every", "4", "Fixtures/video/pan-zoom.avi")
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(try streamed.records().allSatisfy { $0["source"] as? String == url })
        #expect(try recordsWithoutSource(streamed) == recordsWithoutSource(file))
        #expect(try streamed.records().count == 9)
    }

    @Test func standardInputIsReadThroughFFmpegsPipe() throws {
        let piped = try run(facecamBinary, ["video", "--quiet", "--every", "4", "-"], input: URL(fileURLWithPath: fixture("video/pan-zoom.avi")))
        let file = try facecam("video", "--quiet", "--every", "4", "Fixtures/video/pan-zoom.avi")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try piped.records().allSatisfy { $0["source"] as? String == "-" })
        #expect(try recordsWithoutSource(piped) == recordsWithoutSource(file))
    }

    @Test func aStreamThatStallsEndsWithOneLineAfterItsFramesAndHidesThePassword() throws {
        let server = try LocalServer.stalling(fixture("video/pan-zoom.avi"))
        defer { server.stop() }
        let url = "http://viewer:secret@127.0.0.1:\(server.port)/clip.avi"
        let started = Date()
        let result = try facecam("video", "--quiet", "--timeout", "1", url)
        // A stall is told after its second, not at the end of the reading's own timeout (minutes); 60 s leaves a loaded
        // machine room.
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(result.status == 1)
        let records = try result.records()
        #expect(records.count >= 10, "the frames that arrived are written")
        #expect(records.allSatisfy { $0["source"] as? String == "http://viewer:***@127.0.0.1:\(server.port)/clip.avi" })
        #expect(result.errorLines.count == 1)
        #expect(result.stderr.contains("the stream stalled after frame \(records.count - 1): no frame arrived for 1 s"))
        #expect(!result.stderr.contains("secret") && !result.stdout.contains("secret"))

        let live = try facecam("live", "--timeout", "1", "--source", url)
        #expect(live.status == 7)
        #expect(live.stderr.contains("the stream stalled"))
    }

    /// A server that accepts and never answers, within a long --timeout: the first Ctrl-C waits for
    /// the stream, as it waits for any frame in hand; a second one ends the process at once, removing
    /// the partial results file it had open.
    @Test func aSecondInterruptEndsAStuckRunAtOnce() throws {
        let directory = try temporaryDirectory("stuck")
        defer { try? FileManager.default.removeItem(at: directory) }
        let accepted = directory.appendingPathComponent("accepted").path
        let server = try LocalServer(python: """
            import socket, sys
            listener = socket.create_server(("127.0.0.1", 0))
            print(listener.getsockname()[1])
            held = []
            while True:
                held.append(listener.accept()[0])
                open(sys.argv[1], "w").close()
            """, arguments: [accepted])
        defer { server.stop() }
        let results = directory.appendingPathComponent("results")
        let process = try BackgroundProcess(facecamBinary, [
            "video", "--quiet", "--timeout", "600", "--output-dir", results.path, "http://127.0.0.1:\(server.port)/clip.avi",
            "Fixtures/video/pan-zoom.avi"])
        // facecam is waiting in FFmpeg's open once the server has its connection.
        let deadline = Date(timeIntervalSinceNow: 30)
        while !FileManager.default.fileExists(atPath: accepted), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        try #require(FileManager.default.fileExists(atPath: accepted))
        process.signal(SIGINT)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(process.isRunning, "the first interrupt waits for the stream")
        let started = Date()
        process.signal(SIGINT)
        let result = try process.wait()
        // Well within the stream's 600 s --timeout, however loaded the machine: the second interrupt did not wait for it.
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(result.status == 130)
        #expect(result.errorLines.last?.contains("stopped at once by a second SIGINT") == true, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: results.path).isEmpty)
    }

    /// A `file:` URL names a local file: a FIFO there is refused, not opened (open(2) would wait for a writer for ever).
    @Test func aFileURLToAFIFOIsRefused() throws {
        let directory = try temporaryDirectory("fifo-url")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let result = try facecam("video", "--timeout", "3", "file://" + fifo, "Fixtures/video/pan-zoom.avi")
        #expect(result.status == 1)
        #expect(result.errorLines == ["facecam: file://\(fifo): not a regular file (a FIFO, socket or device); name a file, or save the stream to one first"])
        #expect(try result.records().count == 36)
    }

    @Test func anUnreachableURLIsOneLineAndTheOtherInputsGoOn() throws {
        // A port nothing listens on: the files server's, once stopped.
        let server = try LocalServer.files(fixture("video"))
        server.stop()
        let port = server.port
        let result = try facecam("video", "--quiet", "--every", "12", "http://127.0.0.1:\(port)/pan-zoom.avi", "Fixtures/video/pan-zoom.avi")
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1 && result.stderr.contains("http://127.0.0.1:\(port)/pan-zoom.avi: FFmpeg cannot open it"))
        #expect(try result.records().count == 3)
    }

    /// Why an input cannot be opened is FFmpeg's own answer: an HTTP error names its status (the
    /// password hidden), and a file of audio alone says it has no video stream.
    @Test func whyAnInputCannotBeOpenedIsNamed() throws {
        let directory = try temporaryDirectory("unopenable")
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("song.m4a").path
        try ffmpeg(["-f", "lavfi", "-i", "sine=d=1", audio])
        let server = try LocalServer.files(directory.path)
        defer { server.stop() }
        let result = try facecam("video", "--quiet", "http://user:secret@127.0.0.1:\(server.port)/missing.avi", audio, "Fixtures/video/pan-zoom.avi")
        #expect(result.status == 1)
        #expect(result.errorLines == [
            "facecam: http://user:***@127.0.0.1:\(server.port)/missing.avi: FFmpeg cannot open it (Server returned 404 Not Found): "
                + "check the address, that the stream is up, and that FFmpeg reads its protocol and format (standard input needs "
                + "one that plays without seeking, such as MJPEG AVI or MPEG-TS)",
            "facecam: \(audio): not a video facecam can read: it has no video stream, only audio",
        ], "\(result.stderr)")
        #expect(try result.records().count == 36)
    }

    @Test func liveReadsAURLAsACamera() throws {
        let server = try LocalServer.files(fixture("video"))
        defer { server.stop() }
        let result = try facecam("live", "--frames", "5", "--source", "http://127.0.0.1:\(server.port)/pan-zoom.avi")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("captured 5 frames"))
        #expect(try !result.records().isEmpty)
    }

    /// Over RTSP the frames are JPEG-encoded again (see rtsp_server.py), so the faces are compared with
    /// OpenCV's on the file by overlap: every frame arrives, and most faces are found where OpenCV found them.
    @Test func anRTSPStreamArrivesWhole() throws {
        let server = try LocalServer.rtsp(fixture("video/pan-zoom.avi"))
        defer { server.stop() }
        let url = "rtsp://127.0.0.1:\(server.port)/clip"
        let result = try facecam("video", "--quiet", "--timeout", "10", url)
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records()
        let expected = try videoExpectations("video/pan-zoom.avi")
        #expect(records.map { $0["frame"] as! Int } == expected.map(\.frame))
        var found = 0
        for (record, reference) in zip(records, expected) {
            let boxes = (record["faces"] as! [[String: Any]]).map { $0["box"] as! [Int] }
            found += reference.boxes.filter { box in boxes.contains { iou($0, box) >= 0.5 } }.count
        }
        let total = expected.map(\.boxes.count).reduce(0, +)
        #expect(total > 20 && Double(found) >= 0.8 * Double(total), "\(found) of \(total) faces")
    }
}
