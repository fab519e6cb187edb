import ArgumentParser
@testable import FaceCamCLI
import FaceCam
import Foundation
import Testing

struct CommandLineConventionTests {
    @Test func versionComesFromOnePlaceAndShowsInHelp() throws {
        let version = try facecam("--version")
        #expect(version.status == 0)
        let number = version.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(number.split(separator: ".").count == 3 && number.allSatisfy { $0.isNumber || $0 == "." })
        #expect(try facecam("--help").stdout.contains("(facecam \(number))"))
    }

    @Test func aDeviceNumberMeansDevVideoN() throws {
        let run = try facecam("live", "--device", "37", "--frames", "1")
        #expect(run.status == 4)
        #expect(run.stderr.contains("/dev/video37 does not exist"))
    }
}

/// What each command's help lists, read from the help the parser makes in this process (`make test` also runs every
/// command's --help through the binary: Tests/Docs/options.py).
struct HelpTextTests {
    /// Each option's block in `facecam COMMAND --help` (as the binary prints it where standard output is no terminal, 80
    /// columns wide): from its line to the next option's.
    func optionBlocks(_ command: String) throws -> [String: String] {
        let type = try #require(FaceCamCommand.configuration.subcommands.first { $0._commandName == command })
        var blocks: [String: String] = [:]
        var current: String?
        for line in FaceCamCommand.helpMessage(for: type, columns: 80).split(separator: "\n").map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  -"), let name = trimmed.split(separator: " ").first(where: { $0.hasPrefix("--") }) {
                current = String(name.trimmingCharacters(in: [","]))
                blocks[current!] = trimmed
            } else if let current, line.hasPrefix("   ") {
                blocks[current]! += " " + trimmed
            } else {
                current = nil
            }
        }
        return blocks
    }

    @Test(arguments: ["detect", "video", "live", "devices", "map"])
    func everyOptionStatesItsDefaultOnceAtMost(command: String) throws {
        let blocks = try optionBlocks(command)
        #expect(blocks["--help"] != nil && blocks.count >= 3)
        for (option, text) in blocks {
            #expect(text.components(separatedBy: "default:").count <= 2, "\(command) \(option): \(text)")
        }
    }

    @Test func detectListsNoFastModeOptionsAndRefusesThem() throws {
        let blocks = try optionBlocks("detect")
        for option in ["--fast", "--detect-width", "--full-search-every"] {
            #expect(blocks[option] == nil, "detect --help lists \(option)")
        }
        #expect(try optionBlocks("video")["--fast"] != nil && optionBlocks("live")["--detect-width"] != nil)
        #expect(usageError(["detect", "--fast", "Fixtures/images/astronaut.png"])?.contains("Unknown option '--fast'") == true)
    }

    /// What a face record reports goes with the commands that write face records; --jobs with those that
    /// detect many frames at once. The others neither list nor take them.
    @Test func faceRecordOptionsAndJobsAreListedWhereTheyApply() throws {
        let faceRecords = ["--max-faces", "--by", "--pose", "--quality"]
        for command in ["detect", "video", "live", "redact", "eval"] {
            let blocks = try optionBlocks(command)
            let writesRecords = ["detect", "video", "live"].contains(command)
            for option in faceRecords { #expect((blocks[option] != nil) == writesRecords, "\(command) \(option)") }
            #expect((blocks["--jobs"] != nil) == ["detect", "video", "redact"].contains(command), "\(command) --jobs")
        }
        #expect(usageError(["redact", "--jobs", "1", "-o", "/tmp/facecam-jobs.png", "Fixtures/images/astronaut.png"]) == nil)
    }

    /// Detector options say which detector they belong to; the rest say both.
    @Test func detectorOptionsNameTheirDetector() throws {
        let blocks = try optionBlocks("video")
        for option in ["--cascade", "--scale-factor", "--min-neighbors"] { #expect(blocks[option]?.contains("Haar:") == true) }
        // Every network, by name (a backend added is named too).
        let networks = FaceModelKind.allCases.map(\.name).joined(separator: ", ") + ":"
        for option in ["--model", "--score-threshold", "--nms-threshold", "--top-k", "--scales", "--engine", "--precision"] {
            #expect(blocks[option]?.contains(networks) == true, "\(option)")
        }
        for option in ["--min-size", "--max-size", "--threads", "--detect-width"] {
            #expect(blocks[option]?.contains("ll detectors") == true, "\(option)")
        }
        #expect(blocks["--jobs"]?.contains("Frames detected in parallel") == true)
    }
}

/// Usage errors as facecam words them, found in this process (`reportedUsageError`): by parsing, or by the command's checks before any work.
struct UsageErrorLineTests {
    /// Options given where they cannot apply, and values out of range, are usage errors (64) that say why.
    @Test(arguments: [
        (["live", "--source", "Fixtures/video/pan-zoom.avi", "--frames", "-1"], "--frames must be 1 or more"),
        (["live", "--source", "Fixtures/video/pan-zoom.avi", "--jobs", "2"], "Unknown option '--jobs'"),
        (["video", "--detect-width", "320", "Fixtures/video/pan-zoom.avi"], "--detect-width tunes fast mode: add --fast"),
        (["video", "--full-search-every", "3", "Fixtures/video/pan-zoom.avi"], "--full-search-every tunes fast mode: add --fast"),
        (["video", "--fast", "--detector", "yunet", "--full-search-every", "3", "Fixtures/video/pan-zoom.avi"],
         "--full-search-every is an option of the haar detector's fast mode"),
        (["video", "--annotate-every", "5", "Fixtures/video/pan-zoom.avi"], "--annotate-every goes with --annotate"),
        (["live", "--annotate-every", "5", "--source", "Fixtures/video/pan-zoom.avi"], "--annotate-every goes with --annotate"),
        // A negative value is the option's value, refused by its own rule, not "Missing value".
        (["video", "--shard", "-1/3", "Fixtures/video/pan-zoom.avi"], "The value '-1/3' is invalid for '--shard <K/N>': give K/N"),
        (["detect", "--min-faces", "-1", "Fixtures/images"], "--min-faces must be 0 or more"),
        (["detect", "--score-threshold", "-0.5", "Fixtures/images"], "--score-threshold must be from 0 to 1"),
        (["video", "--ignore-zone", "-1,0,5,5", "Fixtures/video/pan-zoom.avi"], "--ignore-zone -1,0,5,5: a polygon needs three corners or more"),
        (["video", "--mask-zone", "-1,0,5,5", "Fixtures/video/pan-zoom.avi"], "--mask-zone -1,0,5,5: a polygon needs three corners or more"),
        (["video", "--overlay", "Fixtures/overlay/sunglasses.png", "--overlay-points", "-10,40,-10,40", "--annotate", "/tmp/facecam-overlay",
          "Fixtures/video/pan-zoom.avi"], "--overlay-points gives two points less than a pixel apart"),
        (["live", "--format", "coco", "--source", "Fixtures/video/pan-zoom.avi"], "--format coco is a dataset written whole when a run ends"),
        (["video", "--events", "--format", "coco", "Fixtures/video/pan-zoom.avi"], "--events needs --format jsonl or text: COCO entries are faces"),
        (["detect", "--format", "mot", "Fixtures/images"], "--format mot is for videos (video, live)"),
        (["video", "--format", "mot", "Fixtures/video/pan-zoom.avi", "Fixtures/video/pan-zoom.avi"], "--format mot holds one video: give one, or --output-dir for a file per video"),
        (["video", "--format", "wider", "--image-root", "/", "-"], "--image-root names files, and input 1 is a stream"),
        (["live", "--format", "wider", "--image-root", "Fixtures", "--source", "Fixtures/video/pan-zoom.avi"],
         "Unknown option '--image-root': it is an option of detect, video and eval"),
        (["detect", "--image-root", "Fixtures", "Fixtures/images"], "--image-root names images in the dataset formats"),
        (["detect", "--format", "wider", "--image-root", "Fixtures/images", "Fixtures/video"], "is not inside --image-root Fixtures/images"),
        (["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "--detector", "haar", "Fixtures/evaluation/run.json"],
         "--detector applies when eval detects itself"),
        // Not "add --detector haar", which the detection files would then refuse.
        (["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "--scale-factor", "1.2", "Fixtures/evaluation/run.json"],
         "--scale-factor applies when eval detects itself: leave out the detection files, or --scale-factor"),
        (["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "--engine", "opencv", "Fixtures/evaluation/run.json"],
         "--engine applies when eval detects itself"),
        (["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "--detector", "yunet", "--scale-factor", "1.2", "Fixtures/evaluation/run.json"],
         "--detector applies when eval detects itself"),
        (["eval", "--ground-truth", "Fixtures/evaluation/truth.json", "--plot", "curves.png", "Fixtures/evaluation/run.json"],
         "--plot writes SVG: name a .svg file"),
    ])
    func usageErrorsSayWhatIsWrong(arguments: [String], message: String) throws {
        let line = try reportedUsageError(arguments)
        #expect(line?.contains(message) == true, "\(line ?? "none")")
    }

    /// A usage error is one line that points to the help of the command it is about; a mistyped
    /// command or option gets the nearest name; an unknown option is said before a missing argument
    /// or a check of the others; a value out of its form says what the form is.
    @Test(arguments: [
        (["vidoe", "x.avi"], "facecam: unknown command 'vidoe': did you mean 'video'? (see 'facecam --help')"),
        (["frobnicate"], "facecam: unknown command 'frobnicate': the commands are detect, video, live, redact, eval, enrol, people, devices, map (see 'facecam --help')"),
        (["redact", "--help-me"], "facecam: Unknown option '--help-me' (see 'facecam redact --help')"),
        (["redact", "--mod", "blur", "-o", "a.jpg", "Fixtures/images/two-faces.jpg"],
         "facecam: Unknown option '--mod'. Did you mean '--mode'? (see 'facecam redact --help')"),
        (["video", "--every", "0", "x.avi"], "facecam: --every must be 1 or more (see 'facecam video --help')"),
        (["live", "--serve", "99999"],
         "facecam: The value '99999' is invalid for '--serve <[HOST:]PORT>': the port is a number from 0 to 65535 (see 'facecam live --help')"),
        (["live", "--serve", "::1:80"],
         "facecam: The value '::1:80' is invalid for '--serve <[HOST:]PORT>': an IPv6 host goes in brackets: [::1]:8080 (see 'facecam live --help')"),
        (["detect", "--scales", "0,2", "x.jpg"],
         "facecam: The value '0,2' is invalid for '--scales <S,S...>': each scale is a number above 0 and at most 4, separated by commas (1,2) (see 'facecam detect --help')"),
        (["redact", "-o", "out.txt", "Fixtures/images/two-faces.jpg"],
         "facecam: -o out.txt: name a .jpg, .png, .webp, .tiff, .bmp or .pnm image, or a .mp4, .mkv, .mov or .avi video, by its extension (see 'facecam redact --help')"),
        (["redact", "-o", "out.mp4", "Fixtures/images/astronaut.png"],
         "facecam: -o out.mp4 names a video, and Fixtures/images/astronaut.png is an image: name a .jpg, .png, .webp, .tiff, .bmp or .pnm file (see 'facecam redact --help')"),
        (["redact", "-o", "out.png", "-"],
         "facecam: -o out.png names an image, and - is a video: name a .mp4, .mkv, .mov or .avi file (see 'facecam redact --help')"),
        // A subcommand's own options are no unknown options of its parent's, and its help is the one pointed to.
        (["people", "rename", "--gallery", "g.sqlite", "Hopper", "a,b"],
         "facecam: 'a,b' cannot be a name: give one of at most 200 bytes, with no comma, control character, line break or invisible mark (zero-width space, direction mark), and no space at either end (see 'facecam people rename --help')"),
        (["people", "forget", "--gallery", "g.sqlite"], "facecam: Missing expected argument '<name>' (see 'facecam people forget --help')"),
        (["people", "--gallry", "g.sqlite"], "facecam: Unknown option '--gallry'. Did you mean '--gallery'? (see 'facecam people list --help')"),
        (["people", "--gallery", "forget"], "facecam: forget: cannot open the gallery: no such file (facecam enrol makes it) (give --gallery a file in a folder you may write)"),
        (["people", "froget", "Bob"], "facecam: unknown subcommand 'froget' of people: did you mean 'forget'? (see 'facecam people --help')"),
        // A value typed as an option gets the option it is a value of.
        (["redact", "--blur", "-o", "a.jpg", "Fixtures/images/two-faces.jpg"],
         "facecam: Unknown option '--blur'. Did you mean '--mode blur'? (see 'facecam redact --help')"),
        // What the command line holds is shown escaped, on one line, and cut when long.
        (["detect", "--det\u{1B}[31m", "x.jpg"], "facecam: Unknown option '--det\\x1B[31m' (see 'facecam detect --help')"),
        (["detect", "--detector\nfoo", "x.jpg"], "facecam: Unknown option '--detector\\x0Afoo' (see 'facecam detect --help')"),
        (["detect", "--detector", "yu\u{1B}[31m", "x.jpg"],
         "facecam: The value 'yu\\x1B[31m' is invalid for '--detector <\((["haar"] + modelDetectors).joined(separator: "|"))>'. "
             + "Please provide one of \((["haar"] + modelDetectors.dropLast()).map { "'\($0)'" }.joined(separator: ", ")) or '\(modelDetectors.last!)'. "
             + "(see 'facecam detect --help')"),
        (["detect", "--" + String(repeating: "a", count: 131_000), "x.jpg"],
         "facecam: Unknown option '--" + String(repeating: "a", count: 58) + "... (131002 characters)' (see 'facecam detect --help')"),
    ])
    func usageErrorsPointToTheirCommandsHelp(arguments: [String], line: String) throws {
        #expect(try reportedUsageError(arguments) == line)
    }
}
