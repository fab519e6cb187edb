import Testing
@testable import FaceCam

/// FaceDetectorUnion over detectors that answer with set faces.
struct FaceDetectorUnionTests {
    typealias ScriptedDetector = FaceCountLimitTests.ScriptedDetector

    static func face(x: Int, y: Int = 10, side: Int, score: Double) -> Face {
        let box = PixelRect(x: x, y: y, width: side, height: side)
        return Face(box: box, preview: box.rect, score: score)
    }

    static func united(_ first: [Face], _ second: [Face]) throws -> [Face] {
        let union = FaceDetectorUnion(ScriptedDetector(first), adding: ScriptedDetector(second), unlessOverlapping: 0.3)
        let size = PixelSize(width: 400, height: 300)
        return try union.detect(in: Frame(width: 400, height: 300), geometry: PreviewGeometry(frameSize: size))
    }

    /// The second detector's faces are added unless one of the first's overlaps them by more than the IoU:
    /// 40x40 at x 10 and at x 20 overlap by 30*40 / (2*1600 - 1200) = 0.6; at x 35, by 15*40 / 2600 = 0.23.
    @Test func theSecondDetectorsFacesAreAddedWhereTheFirstFoundNone() throws {
        let first = [Self.face(x: 10, side: 40, score: 0.2), Self.face(x: 300, y: 200, side: 20, score: 0.9)]
        let second = [Self.face(x: 20, side: 40, score: 0.99), Self.face(x: 35, y: 10, side: 40, score: 0.95),
                      Self.face(x: 100, y: 5, side: 60, score: 0.97)]
        let faces = try Self.united(first, second)
        // In reporting order: by y, then x.
        #expect(faces.map(\.box.x) == [100, 10, 35, 300])
        #expect(faces.map(\.score) == [0.97, 0.2, 0.95, 0.9])
    }

    @Test func eitherDetectorAloneIsKeptWhole() throws {
        let faces = [Self.face(x: 10, side: 40, score: 0.5), Self.face(x: 200, side: 30, score: 0.8)]
        #expect(try Self.united(faces, []) == faces)
        #expect(try Self.united([], faces) == faces)
    }

    @Test func aNewSourceReachesBothDetectors() {
        let (first, second) = (ScriptedDetector([]), ScriptedDetector([]))
        FaceDetectorUnion(first, adding: second, unlessOverlapping: 0.3).beginSource()
        #expect(first.sourcesBegun == 1 && second.sourcesBegun == 1)
    }
}
