@testable import FaceCamCLI
import FaceCam
import Testing

/// redact's defaults for false masks, parsed in this process: the size check is on unless --detector is given, and the
/// lookahead holds back the grace's frames, at most 10, only for videos detected at every frame and without --spare.
struct RedactOptionsTests {
    static func parsed(_ arguments: String...) throws -> Redact {
        try Redact.parse(["-o", "out.mkv"] + arguments + ["in.mkv"])
    }

    /// The options as redact runs them.
    static func redacting(_ arguments: String...) throws -> (options: DetectorOptions, focused: Bool) {
        let command = try Redact.parse(["-o", "out.mkv"] + arguments + ["in.mkv"])
        return command.detector.redactionDefaults(focus: command.focus.given)
    }

    @Test func theSizeCheckIsOnUnlessADetectorIsChosen() throws {
        #expect(try Self.redacting().options.sizeCheck == true)
        #expect(try Self.redacting("--no-size-check").options.sizeCheck == false)
        #expect(try Self.redacting("--detector", "centerface").options.sizeCheck == nil)
        #expect(try Self.redacting("--detector", "centerface", "--size-check").options.sizeCheck == true)
    }

    /// Focus is on by default over redact's three scales, and over any several given; off over one, or once a detector
    /// is chosen, unless given.
    @Test func focusIsOnOverSeveralScalesUnlessADetectorIsChosen() throws {
        #expect(try Self.redacting().focused == true)
        #expect(try Self.redacting().options.scales?.values == [1, 2, 3])
        #expect(try Self.redacting("--scales", "1,2").focused == true)
        #expect(try Self.redacting("--scales", "1").focused == false)
        #expect(try Self.redacting("--no-focus").focused == false)
        #expect(try Self.redacting("--detector", "centerface").focused == false)
        #expect(try Self.redacting("--detector", "centerface", "--scales", "1,2", "--focus").focused == true)
        // Detect's default is off, whatever the scales.
        #expect(try Detect.parse(["--scales", "1,2", "in.jpg"]).focus.focused == false)
    }

    @Test func theLookaheadHoldsTheGraceBackOnlyWhereAOneOffIsMostlyAMistake() throws {
        #expect(try Self.parsed().lookaheadFrames(grace: 5, sparing: false) == 5)
        #expect(try Self.parsed().lookaheadFrames(grace: 30, sparing: false) == 10)
        #expect(try Self.parsed().lookaheadFrames(grace: 5, sparing: true) == 0)
        #expect(try Self.parsed("--search-every", "2").lookaheadFrames(grace: 5, sparing: false) == 0)
        #expect(try Self.parsed("--no-lookahead").lookaheadFrames(grace: 5, sparing: false) == 0)
    }
}
