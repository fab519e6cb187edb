@testable import FaceCamCLI
import FaceCam
import Testing

/// redact's defaults for false masks, parsed in this process: the size check is on unless --detector is given, and the
/// lookahead holds back the grace's frames, at most 10, only for videos detected at every frame and without --spare.
struct RedactOptionsTests {
    static func parsed(_ arguments: String...) throws -> Redact {
        try Redact.parse(["-o", "out.mkv"] + arguments + ["in.mkv"])
    }

    @Test func theSizeCheckIsOnUnlessADetectorIsChosen() throws {
        #expect(try Self.parsed().detector.redactionDefaults.sizeCheck == true)
        #expect(try Self.parsed("--no-size-check").detector.redactionDefaults.sizeCheck == false)
        #expect(try Self.parsed("--detector", "centerface").detector.redactionDefaults.sizeCheck == nil)
        #expect(try Self.parsed("--detector", "centerface", "--size-check").detector.redactionDefaults.sizeCheck == true)
    }

    @Test func theLookaheadHoldsTheGraceBackOnlyWhereAOneOffIsMostlyAMistake() throws {
        #expect(try Self.parsed().lookaheadFrames(grace: 5, sparing: false) == 5)
        #expect(try Self.parsed().lookaheadFrames(grace: 30, sparing: false) == 10)
        #expect(try Self.parsed().lookaheadFrames(grace: 5, sparing: true) == 0)
        #expect(try Self.parsed("--search-every", "2").lookaheadFrames(grace: 5, sparing: false) == 0)
        #expect(try Self.parsed("--no-lookahead").lookaheadFrames(grace: 5, sparing: false) == 0)
    }
}
