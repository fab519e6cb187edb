import Foundation
import Testing

/// --on-event end to end: a real /bin/sh command per enter and leave event.
struct EventHookTests {
    /// Each event runs the command once with its --events record on standard input and the FACECAM_
    /// variables set; the command's own output goes to standard error, so standard output stays
    /// the results; a summary line ends the run.
    @Test func eachEventRunsTheCommandWithItsRecord() throws {
        let directory = try temporaryDirectory("on-event")
        defer { try? FileManager.default.removeItem(at: directory) }
        let command = "cat > \"\(directory.path)/$FACECAM_ID-$FACECAM_EVENT.json\"; "
            + "printf '%s %s %s %s %s' \"$FACECAM_EVENT\" \"$FACECAM_ID\" \"$FACECAM_SOURCE\" \"$FACECAM_FRAME\" \"$FACECAM_TIME\" "
            + "> \"\(directory.path)/$FACECAM_ID-$FACECAM_EVENT.env\"; echo from-the-command"
        let result = try facecam("video", "--quiet", "--events", "--on-event", command, "Fixtures/video/leave-enter.avi")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("from-the-command") && result.stderr.components(separatedBy: "from-the-command").count == 5)
        #expect(result.errorLines.last == "facecam: --on-event: 4 runs, 0 failed")
        let events = result.lines.filter { $0.hasPrefix("{\"event\"") }
        try #require(events.count == 4)
        for line in events {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let stem = "\(record["id"]!)-\(record["event"]!)"
            let input = try String(contentsOf: directory.appendingPathComponent(stem + ".json"), encoding: .utf8)
            #expect(input == line + "\n")
            let variables = try String(contentsOf: directory.appendingPathComponent(stem + ".env"), encoding: .utf8)
            #expect(variables == "\(record["event"]!) \(record["id"]!) Fixtures/video/leave-enter.avi \(record["frame"]!) \(record["time"]!)")
        }
    }

    /// A failing command and one past --on-event-timeout are each reported, one line per event, and
    /// counted; the results are all written and the status stays 0; a killed command's children go too.
    @Test(arguments: [("exit 3", "the command exited with status 3"), ("sleep 37", "the command ran longer than 0.5 s and was killed")])
    func failingCommandsAreReportedAndNeverStopDetection(command: String, message: String) throws {
        let plain = try facecam("video", "--quiet", "Fixtures/video/leave-enter.avi")
        let result = try facecam("video", "--quiet", "--on-event", command, "--on-event-timeout", "0.5", "Fixtures/video/leave-enter.avi")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == plain.stdout)
        #expect(result.errorLines.filter { $0.contains(message) }.count == 4, "\(result.stderr)")
        #expect(result.errorLines.last == "facecam: --on-event: 4 runs, 4 failed")
        if command.hasPrefix("sleep") {
            let left = try run(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "^\(command)$"])
            #expect(left.stdout.isEmpty, "still running: \(left.stdout)")
        }
    }

    @Test(arguments: [
        (["video", "--on-event-jobs", "2"], "--on-event-jobs tunes --on-event"),
        (["video", "--on-event", "true", "--on-event-jobs", "0"], "--on-event-jobs must be from 1 to 64"),
        (["video", "--on-event", "true", "--on-event-timeout", "0"], "--on-event-timeout must be more than 0"),
        (["video", "--on-event", " "], "--on-event needs a command"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try run(facecamBinary, arguments + ["Fixtures/video/leave-enter.avi"])
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("facecam: \(message)") == true, "\(result.stderr)")
    }
}
