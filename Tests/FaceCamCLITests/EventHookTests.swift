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
        // Only the sleeper meets the short timeout: a loaded machine may take longer than 0.5 s to start a shell.
        let timeout = command.hasPrefix("sleep") ? "0.5" : "60"
        let result = try facecam("video", "--quiet", "--on-event", command, "--on-event-timeout", timeout, "Fixtures/video/leave-enter.avi")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == plain.stdout)
        #expect(result.errorLines.filter { $0.contains(message) }.count == 4, "\(result.stderr)")
        #expect(result.errorLines.last == "facecam: --on-event: 4 runs, 4 failed")
        if command.hasPrefix("sleep") {
            let left = try run(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "^\(command)$"])
            #expect(left.stdout.isEmpty, "still running: \(left.stdout)")
        }
    }

    /// A command gets standard input, output and error only (a descriptor facecam inherited, here 7,
    /// stays facecam's: a background process the command leaves holds no port or socket of facecam's),
    /// no blocked signal and no ignored one (facecam ignores SIGINT and SIGTERM), as a shell would start it.
    @Test func aCommandStartsWithNoDescriptorOrSignalStateOfFacecams() throws {
        let directory = try temporaryDirectory("on-event-clean")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The shell reads its own status with builtins, before it forks: while dash forks, it blocks every signal.
        let command = "while read -r key value; do case $key in SigBlk:|SigIgn:) echo \"$key $value\";; esac; done < /proc/$$/status "
            + "> \"\(directory.path)/$FACECAM_ID-$FACECAM_EVENT.signals\"; ls /proc/$$/fd > \"\(directory.path)/$FACECAM_ID-$FACECAM_EVENT.fd\""
        let script = "exec 7</dev/null; exec \"$0\" video --quiet --on-event \"$1\" Fixtures/video/leave-enter.avi"
        let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, facecamBinary.path, command])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.count == 8, "\(names)")
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            if name.hasSuffix(".fd") {
                // The shell's own (dash keeps what it saves at 10 and above); none of facecam's.
                let descriptors = text.split(separator: "\n").compactMap { Int($0) }
                #expect(descriptors.filter { $0 > 2 && $0 < 10 }.isEmpty && descriptors.contains(2), "\(name): \(descriptors)")
            } else {
                // Signals 1 to 31 (HUP, INT, TERM, PIPE, CHLD, ...) neither blocked nor ignored; glibc keeps 32 and 33 to itself.
                let masks = text.split(separator: "\n").compactMap { UInt64($0.split(separator: " ").last ?? "", radix: 16) }
                #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7FFF_FFFF == 0 }, "\(name): \(text)")
            }
        }
    }

    /// Commands that hang are killed at --on-event-timeout and the run ends with its summary. (How long the end waits for
    /// queued commands is EventHooksTests', on a clock moved by hand.)
    @Test func hangingCommandsAreKilledAndTheRunEnds() throws {
        let result = try facecam(
            "video", "--quiet", "--on-event", "exec sleep 60", "--on-event-jobs", "1", "--on-event-timeout", "1",
            "Fixtures/video/leave-enter.avi")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.contains { $0.contains("--on-event: the command ran longer than 1 s and was killed for id ") },
                "\(result.stderr)")
        #expect(result.errorLines.last?.hasPrefix("facecam: --on-event: ") == true, "\(result.stderr)")
    }

}
