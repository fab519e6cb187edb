@testable import FaceCamCLI
import FaceCam
import Foundation
import Testing

/// Options that cannot be used together or hold values no command can take: usage errors, found as the binary finds
/// them (`UsageErrorTests` checks that it reports what parsing finds).
struct OptionCheckTests {
    @Test(arguments: [
        (["--orientation", "9"], "--orientation"),
        (["--orientation", "sideways"], "--orientation"),
        (["--aperture", "0,0,0,10"], "--aperture"),
        (["--aperture", "1,2,3"], "--aperture"),
        (["--preview", "0x10"], "--preview"),
        (["--gravity", "stretch"], "--gravity"),
        (["--detector", "haar", "--scale-factor", "1"], "--scale-factor 1.0 must be a number from 1.01 to 4"),
        (["--detector", "haar", "--scale-factor", "1.0000001"], "--scale-factor"),
        (["--detector", "haar", "--scale-factor", "1e9"], "--scale-factor 1000000000.0 must be a number from 1.01 to 4"),
        (["--detector", "haar", "--min-neighbors=-1"], "--min-neighbors must be 0 or more"),
        (["--max-size", "10", "--min-size", "20"], "--max-size"),
        (["--format", "xml"], "--format"),
        (["--min-faces", "-2"], "--min-faces"),
        (["--fast"], "--fast"),
        // YuNet's values (the default detector, named here).
        (["--detector", "yunet", "--score-threshold", "1.5"], "--score-threshold"),
        (["--detector", "yunet", "--nms-threshold", "-0.1"], "--nms-threshold"),
        (["--detector", "yunet", "--top-k", "0"], "--top-k"),
        (["--detector", "dnn"], "--detector"),
        (["--detector", "yunet", "--scales", "0"], "--scales"),
        (["--detector", "yunet", "--scales", "1,1"], "--scales"),
        (["--detector", "yunet", "--scales", "1,x"], "--scales"),
        (["--detector", "yunet", "--scales", "5"], "--scales"),
        (["--detector", "yunet", "--scales", "1,2,3,4,0.5"], "--scales"),
        // Focus narrows the larger of several scales: one scale has none.
        (["--detector", "yunet", "--focus"], "--focus"),
        (["--detector", "yunet", "--scales", "2", "--focus"], "--focus"),
    ])
    func usageErrorsNameTheOption(arguments: [String], option: String) throws {
        let line = usageError(["detect"] + arguments + ["Fixtures/images/astronaut.png"])
        #expect(line?.contains(option) == true, "\(line ?? "none")")
    }

    @Test(arguments: [
        (["--detector", "yunet", "--cascade", "haarcascade_frontalface_default"], "--cascade", "haar"),
        (["--detector", "yunet", "--scale-factor", "1.2"], "--scale-factor", "haar"),
        (["--detector", "yunet", "--min-neighbors", "4"], "--min-neighbors", "haar"),
        (["--detector", "centerface", "--min-neighbors", "4"], "--min-neighbors", "haar"),
        // Haar's options need --detector haar: YuNet is the default.
        (["--cascade", "haarcascade_frontalface_default"], "--cascade", "haar"),
        (["--scale-factor", "1.2"], "--scale-factor", "haar"),
        (["--detector", "haar", "--model", "/tmp/x.onnx"], "--model", modelDetectorNames),
        (["--detector", "haar", "--score-threshold", "0.5"], "--score-threshold", modelDetectorNames),
        (["--detector", "haar", "--nms-threshold", "0.5"], "--nms-threshold", modelDetectorNames),
        (["--detector", "haar", "--top-k", "10"], "--top-k", modelDetectorNames),
        (["--detector", "haar", "--scales", "1,2"], "--scales", modelDetectorNames),
        (["--detector", "haar", "--focus"], "--focus", modelDetectorNames),
    ])
    func anOptionOfTheOtherDetectorNamesItsDetector(arguments: [String], option: String, owner: String) throws {
        let line = usageError(["detect"] + arguments + ["Fixtures/images/astronaut.png"])
        #expect(line?.hasPrefix("facecam: \(option) is an option of the \(owner) detector") == true, "\(line ?? "none")")
    }

    @Test(arguments: [
        (["detect", "--max-faces", "0"], "--max-faces must be 1 or more"),
        (["detect", "--by", "score"], "--by says which faces --max-faces keeps"),
        (["detect", "--detector", "haar", "--max-faces", "1", "--by", "score"], "--by score needs scores"),
        (["redact", "--max-faces", "1", "-o", "/tmp/facecam-never-written.png"], "Unknown option '--max-faces'"),
        (["live", "--redact", "blur", "--max-faces", "1"], "--redact hides every face found"),
        (["video", "--redact", "blur", "--by", "score"], "--redact hides every face found"),
        (["detect", "--max-faces", "1", "--min-faces", "2"], "--min-faces 2 cannot be met with --max-faces 1"),
        (["eval", "--ground-truth", fixture("evaluation/truth.json"), "--max-faces", "1"], "Unknown option '--max-faces'"),
        // eval scores every face down to its curve's lowest score, where focus would search other tiles: not its option.
        (["eval", "--ground-truth", fixture("evaluation/truth.json"), "--focus"], "Unknown option '--focus'"),
        // redact searches every Nth frame with --search-every; --every (video's) skips frames, which redact never does.
        (["redact", "--every", "3", "-o", "/tmp/facecam-never-written.mkv"], "Unknown option '--every'. Did you mean '--search-every'?"),
    ])
    func limitsThatCannotHoldAreUsageErrors(arguments: [String], message: String) throws {
        let line = usageError(arguments + (arguments[0] == "live" ? [] : [fixture("images/astronaut.png")]))
        #expect(line?.hasPrefix("facecam: \(message)") == true, "\(line ?? "none")")
    }

    @Test(arguments: [
        (["--aperture", "30,0,20,20"], "--aperture"),
        (["--orientation", "0"], "--orientation"),
        (["--preview", "10x0"], "--preview"),
    ])
    func invalidGeometryIsAUsageError(arguments: [String], option: String) throws {
        let line = usageError(["map", "--frame", "40x20", "--rect", "4,2,6,4"] + arguments)
        #expect(line?.contains(option) == true, "\(line ?? "none")")
    }

    @Test(arguments: [
        (["video", "--on-event-jobs", "2"], "--on-event-jobs tunes --on-event"),
        (["video", "--on-event", "true", "--on-event-jobs", "0"], "--on-event-jobs must be from 1 to 64"),
        (["video", "--on-event", "true", "--on-event-timeout", "0"], "--on-event-timeout must be more than 0"),
        (["video", "--on-event", " "], "--on-event needs a command"),
    ])
    func badEventHookOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let line = usageError(arguments + ["Fixtures/video/leave-enter.avi"])
        #expect(line?.hasPrefix("facecam: \(message)") == true, "\(line ?? "none")")
    }

    @Test(arguments: [
        ["--device", "/dev/video0", "--source", "x.avi"], ["--realtime"], ["--source", "x.avi", "--fps", "30"],
        ["--frames", "0"], ["--timeout", "0"], ["--pixel-format", "h264"],
        // Given as their defaults, they are still given: refused where they have no use.
        ["--source", "x.avi", "--pixel-format", "auto"], ["--mqtt-discovery", "on"], ["--mqtt-discovery-prefix", "homeassistant"],
        ["--serve-people"],
    ])
    func contradictoryOptionsAreUsageErrors(arguments: [String]) throws {
        #expect(usageError(["live"] + arguments) != nil)
    }

    @Test(arguments: [
        ["--serve", "http"], ["--serve", "70000"], ["--serve", "::1:8080"], ["--serve", "[::1]8080"], ["--serve", ":8080"],
        ["--loop"], ["--source", "-", "--loop"], ["--source", "x.avi", "--redact", "blur"],
    ])
    func badServeAndShowOptionsAreUsageErrors(arguments: [String]) throws {
        #expect(usageError(["live"] + arguments) != nil)
    }

    @Test(arguments: [
        (["--mqtt", "mqtt://camera:pw@localhost"], "--mqtt: the broker URL holds a password"),
        (["--mqtt", "mqtt://camera:p/w@localhost"], "--mqtt: the broker URL holds a password, which ps shows"),
        (["--mqtt", "http://camera:pw@localhost"], "--mqtt: the broker URL holds a password, which ps shows"),
        (["--mqtt", "mqtt://::1"], "--mqtt: mqtt://::1: write an IPv6 address in brackets"),
        (["--mqtt", "mqtt://localhost", "--mqtt-topic", "$SYS/x"], "--mqtt-topic $SYS/x: a prefix is levels joined by /"),
        (["--mqtt", "http://localhost"], "--mqtt: http://localhost: the scheme is mqtt:// or mqtts://"),
        (["--mqtt", "mqtt://localhost:99999"], "--mqtt: mqtt://localhost:99999: the port must be a number from 1 to 65535"),
        (["--mqtt-topic", "facecam/x"], "--mqtt-topic goes with --mqtt URL"),
        (["--mqtt", "mqtt://localhost", "--mqtt-ca", "/etc/hostname"], "--mqtt-ca is for TLS"),
        (["--mqtt", "mqtt://localhost", "--mqtt-topic", "a/#"], "--mqtt-topic a/#: a prefix is levels joined by /"),
        (["--mqtt", "mqtt://localhost", "--name", "a/b"], "--name a/b: one topic level is needed"),
        (["--mqtt", "mqtt://localhost", "--mqtt-queue", "0"], "--mqtt-queue must be from 1 to 100000"),
        // Values libmosquitto would refuse once running are refused first, naming the option.
        (["--mqtt", "mqtt://localhost", "--name", "hall\u{85}"], "--name: holds U+0085, which MQTT does not allow in a topic"),
        (["--mqtt", "mqtt://localhost", "--mqtt-topic", "home/\u{FFFE}"], "--mqtt-topic: holds U+FFFE, which MQTT does not allow"),
        (["--mqtt", "mqtt://localhost", "--mqtt-discovery-prefix", "ha\u{85}"], "--mqtt-discovery-prefix: holds U+0085"),
        (["--mqtt", "mqtt://localhost", "--name", String(repeating: "n", count: 70_000)],
         "--name: 70000 bytes is longer than the 1024 MQTT topics can be built on"),
        // A negative value is the option's, refused by its own rule, not "Missing value".
        (["--mqtt", "mqtt://localhost", "--mqtt-queue", "-1"], "--mqtt-queue must be from 1 to 100000"),
        (["--mqtt-person-hold", "3"], "--mqtt-person-hold goes with --mqtt URL"),
        (["--mqtt", "mqtt://localhost", "--mqtt-person-hold", "3"], "--mqtt-person-hold tunes the person sensors --recognize adds"),
        (["--mqtt", "mqtt://localhost", "--recognize", "--mqtt-person-hold", "-1"], "--mqtt-person-hold must be from 0 to 86400"),
    ])
    func badMQTTOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let line = usageError(["live", "--source", MQTTTests.clip] + arguments)
        #expect(line?.hasPrefix("facecam: \(message)") == true, "\(line ?? "none")")
    }

    /// Names --spare could not list (a comma), that would not show (spaces at either end), or too long for MQTT topics.
    @Test(arguments: [["enrol", "Hopper, Grace", "Fixtures/images/grace_hopper.jpg"], ["enrol", " Grace", "Fixtures/images/grace_hopper.jpg"],
                      ["enrol", "", "Fixtures/images/grace_hopper.jpg"], ["people", "rename", "Grace", "Hopper, Grace"],
                      ["enrol", String(repeating: "g", count: 201), "Fixtures/images/grace_hopper.jpg"]])
    func namesThatCannotBeAreUsageErrors(_ arguments: [String]) throws {
        let line = usageError(arguments)
        #expect(line?.contains("cannot be a name: give one of at most 200 bytes, with no comma") == true, "\(line ?? "none")")
    }

    /// --format's help is made from the formats themselves: each is listed with what it says it is.
    @Test func formatHelpListsEveryFormatAsItDescribesItself() {
        let help = Detect.helpMessage(columns: 10_000)
        for format in ResultFormat.allCases {
            #expect(help.contains("\(format.rawValue) (\(format.summary)"), "\(format)")
        }
        #expect(help.contains("mot (MOTChallenge's lines; video and live)"))
        #expect(help.contains("coco (a COCO instances JSON, written whole at the end; detect and video)"))
        #expect(help.contains("yolo (a folder of YOLO label files and data.yaml, in --output-dir; detect and video)"))
        #expect(help.contains("csv (one row per face), "))
    }

    /// What a usage error says to do: the orientations files alone have, the numbers among the names, the frame a map needs,
    /// the one file --annotate-video takes, where the dataset formats go, and the engine's options.
    @Test(arguments: [
        (["live", "--orientation", "auto"], "--orientation auto is for files"),
        (["map", "--frame", "640x480", "--rect", "0,0,10,10", "--orientation", "auto"], "--orientation auto is for files"),
        (["detect", "--orientation", "9", "Fixtures/images/astronaut.png"], "auto, 1, 2, 3, 4, 5, 6, 7, 8, up,"),
        (["map", "--frame", "0x20", "--rect", "4,2,6,4"], "--frame"),
        (["video", "--annotate-video", "/tmp/x.avi", "Fixtures/video/pan-zoom.avi", "Fixtures/video/rotated.mp4"],
         "--annotate-video takes one input file"),
        (["detect", "--format", "yolo", "Fixtures/images"], "--format yolo writes a folder of files: give --output-dir DIR"),
        (["live", "--format", "cvat", "--source", "Fixtures/video/pan-zoom.avi"], "--format cvat is a dataset"),
        (["video", "--format", "voc", "--output-dir", "/tmp/x", "--resume", "Fixtures/video/pan-zoom.avi"], "cannot split"),
        (["detect", "--format", "wider", "--output-dir", "/tmp/x", "-o", "/tmp/y", "Fixtures/images"],
         "--output-dir and --output both say where results go"),
        (["detect", "--detector", "haar", "--engine", "openvino", "Fixtures/images"], "--engine is an option of the \(modelDetectorNames) detectors"),
        (["detect", "--detector", "haar", "--precision", "bf16", "Fixtures/images"], "--precision is an option of the \(modelDetectorNames) detectors"),
        (["detect", "--engine", "opencv", "--precision", "bf16", "Fixtures/images"], "--precision bf16 is OpenVINO's"),
        (["detect", "--engine", "tensorrt", "Fixtures/images"], "--engine"),
        (["detect", "--threads", "0", "Fixtures/images"], "--threads must be from 1 to 256"),
        (["detect", "--opencv-threads", "300", "Fixtures/images"], "--threads must be from 1 to 256"),
        (["video", "--events", "--format", "csv", "Fixtures/video/leave-enter.avi"], "--events needs --format jsonl or text"),
        (["detect", "--recognize", "--format", "yolo", "--output-dir", "/tmp/x", "Fixtures/images/astronaut.png"],
         "--format yolo has no place for the names --recognize gives"),
    ])
    func usageErrorsSayWhatToDo(arguments: [String], words: String) {
        let line = usageError(arguments)
        #expect(line?.contains(words) == true, "\(arguments): \(line ?? "none")")
    }
}
