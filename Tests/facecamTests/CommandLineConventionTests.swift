import Foundation
import Testing

struct CommandLineConventionTests {
    @Test func versionComesFromOnePlaceAndShowsInHelp() throws {
        let version = try facecam("--version")
        #expect(version.status == 0)
        let number = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(number.split(separator: ".").count == 3 && number.allSatisfy { $0.isNumber || $0 == "." })
        #expect(try facecam("--help").stdout.contains("(facecam \(number))"))
    }

    @Test func aNegativeFrameCountIsNamedNotAMissingValue() throws {
        let run = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--frames", "-1")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--frames must be 1 or more"))
    }

    @Test func jobsIsRefusedWhereItDoesNotApply() throws {
        let run = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--jobs", "2")
        #expect(run.status == 64)
        #expect(run.stderr.contains("--jobs does not apply to live"))
    }
}
