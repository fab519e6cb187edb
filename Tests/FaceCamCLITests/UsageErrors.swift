@testable import FaceCamCLI
import Foundation
import Testing

/// A usage error as facecam reports it on standard error ("facecam: " and one line), found in this
/// process: `arguments` are parsed and checked as the binary does before anything runs, without
/// starting it (nil when they pass). The binary's own report is checked against this in
/// `UsageErrorTests`.
func usageError(_ arguments: [String]) -> String? {
    FaceCamCommand.usageError(in: arguments).map { "facecam: " + $0 }
}

/// The usage error `arguments` get, found in this process: by parsing, or else by running the command until it refuses
/// what it was given, as some checks need (reading a picture or a list, the inputs' places, the gallery), before any work:
/// the line the binary would report for the refusal, nil when there is none. `UsageErrorTests` checks the binary's own.
func reportedUsageError(_ arguments: [String]) throws -> String? {
    if let line = usageError(arguments) { return line }
    do {
        try FaceCamCommand.parsedAndRun(arguments, ownsProcess: false)
    } catch let refusal as Refusal where refusal.status == Status.usage {
        return reported(refusal.line)
    } catch {
        return nil
    }
    return nil
}

struct UsageErrorTests {
    /// The binary reports what this process finds, by parsing or by the command's own checks, on one line, exits 64 and
    /// writes nothing to standard output: one case of each kind of check.
    @Test(arguments: [
        ["detect", "--max-faces", "0", "Fixtures/images/astronaut.png"],
        ["detect", "--detector", "haar", "--pose", "Fixtures/images/astronaut.png"],
        ["redact", "--max-faces", "1", "-o", "/tmp/facecam-never-written.png", "Fixtures/images/astronaut.png"],
        ["video", "--shard", "-1/3", "Fixtures/video/pan-zoom.avi"],
        ["vidoe", "Fixtures/video/pan-zoom.avi"],
        ["live", "--serve", "99999", "--source", "Fixtures/video/pan-zoom.avi"],
        ["map", "--frame", "40x20", "--rect", "4,2,6,4", "--preview", "0x0"],
        // Found by the command before any work, not by parsing.
        ["video", "--files-from", "/dev/null"],
        ["detect", "--format", "wider", "--image-root", "Fixtures/images", "Fixtures/video"],
        ["people", "--gallery", "Fixtures/images/astronaut.png"],
    ])
    func theBinaryReportsWhatThisProcessFinds(arguments: [String]) throws {
        let expected = try #require(try reportedUsageError(arguments), "\(arguments) refused")
        let result = try run(facecamBinary, arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.errorLines == [expected], "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/facecam-never-written.png"))
    }

    @Test func argumentsThatPassGiveNone() {
        #expect(usageError(["detect", "Fixtures/images/astronaut.png"]) == nil)
        #expect(usageError(["detect", "--help"]) == nil)
        #expect(usageError(["map", "--frame", "40x20", "--rect", "4,2,6,4"]) == nil)
    }
}
