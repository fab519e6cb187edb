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

/// The usage error `arguments` get: found in this process when parsing finds it; else the binary
/// runs them, since some checks need the command to run (reading a picture or a list, the inputs'
/// places): then it must exit 64 with one line on standard error and nothing on standard output, and
/// that line is returned (nil when it does not).
func reportedUsageError(_ arguments: [String]) throws -> String? {
    if let line = usageError(arguments) { return line }
    let result = try run(facecamBinary, arguments)
    guard result.status == 64, result.stdout.isEmpty, result.errorLines.count == 1 else { return nil }
    return result.errorLines[0]
}

struct UsageErrorTests {
    /// The binary reports what parsing in this process finds, on one line, exits 64 and writes nothing
    /// to standard output: one case of each kind of check.
    @Test(arguments: [
        ["detect", "--max-faces", "0", "Fixtures/images/astronaut.png"],
        ["detect", "--detector", "haar", "--pose", "Fixtures/images/astronaut.png"],
        ["redact", "--max-faces", "1", "-o", "/tmp/facecam-never-written.png", "Fixtures/images/astronaut.png"],
        ["video", "--shard", "-1/3", "Fixtures/video/pan-zoom.avi"],
        ["vidoe", "Fixtures/video/pan-zoom.avi"],
        ["live", "--serve", "99999", "--source", "Fixtures/video/pan-zoom.avi"],
        ["map", "--frame", "40x20", "--rect", "4,2,6,4", "--preview", "0x0"],
    ])
    func theBinaryReportsWhatParsingFinds(arguments: [String]) throws {
        let expected = try #require(usageError(arguments), "\(arguments) parse")
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
