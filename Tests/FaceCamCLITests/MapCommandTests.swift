@testable import FaceCamCLI
import Testing

/// facecam map's geometry rules, in this process: `Map.line`, the line `run` prints.
struct MapRuleTests {
    @Test(arguments: [
        // 40x20 frame, rect corners (4, 2) and (10, 6); orientation 6: (x, y) -> (20 - y, x) gives (14, 4, 4, 6).
        (["--orientation", "6"], "14 4 4 6"),
        // Mirrored in the 20-wide upright image: x -> 20 - x gives (2, 4, 4, 6); fill into 100x100
        // scales by max(100/20, 100/40) = 5 and centres: y offset (100 - 200) / 2 = -50.
        (["--orientation", "right", "--mirror", "--preview", "100x100", "--gravity", "fill"], "10 -30 20 30"),
        // aspect: scale min(100/40, 100/20) = 2.5, y offset (100 - 50) / 2 = 25.
        (["--preview", "100x100"], "10 30 15 10"),
        // resize: x by 100/40, y by 100/20.
        (["--preview", "100x100", "--gravity", "resize"], "10 10 15 20"),
        // The aperture's origin comes off first: (4 - 2, 2 - 1).
        (["--aperture", "2,1,30,15"], "2 1 6 4"),
    ])
    func mapsByTheGeometryRules(arguments: [String], expected: String) throws {
        #expect(try Map.parse(["--frame", "40x20", "--rect", "4,2,6,4"] + arguments).line() == expected)
    }

    /// A rect partly left of or above the frame is valid, and its leading minus is not an option's.
    @Test func negativeCoordinatesAreValues() throws {
        // Orientation 6 on a 40x20 frame: (x, y) -> (20 - y, x); corners (-4, -2) and (2, 2) give (18, -4)-(22, 2).
        #expect(try Map.parse(["--frame", "40x20", "--rect", "-4,-2,6,4", "--orientation", "6"]).line() == "18 -4 4 6")
    }
}

/// facecam map run as a user runs it: the binary prints the line, and nothing else.
struct MapCommandTests {
    @Test func fractionsArePlainDecimals() throws {
        // 640x480, orientation 6: (10, 20)-(40, 60) -> (420, 10)-(460, 40); aspect into 100x100:
        // scale 100/640 = 0.15625, x offset (100 - 75) / 2 = 12.5.
        let result = try facecam("map", "--frame", "640x480", "--rect", "10,20,30,40", "--orientation", "6", "--preview", "100x100")
        #expect(result.status == 0 && result.stderr.isEmpty)
        #expect(result.stdout == "78.125 1.5625 6.25 4.6875\n")
    }
}
