import Testing
@testable import FaceCam

/// FaceCountLimit over a detector that answers with set faces.
struct FaceCountLimitTests {
    final class ScriptedDetector: FrameFaceDetector {
        let faces: [Face]
        var sourcesBegun = 0
        init(_ faces: [Face]) { self.faces = faces }
        func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] { faces }
        func beginSource() { sourcesBegun += 1 }
    }

    static func face(x: Int, side: Int, score: Double?) -> Face {
        let box = PixelRect(x: x, y: 10, width: side, height: side)
        return Face(box: box, preview: box.rect, score: score)
    }

    // In reporting order (by x here): sides 20, 50, 30, 50; scores 0.9, 0.6, 0.95, 0.7.
    static let faces = [face(x: 0, side: 20, score: 0.9), face(x: 100, side: 50, score: 0.6),
                        face(x: 200, side: 30, score: 0.95), face(x: 300, side: 50, score: 0.7)]

    static func kept(_ count: Int, by ranking: FaceRanking, of faces: [Face] = faces) throws -> [Int] {
        let limit = FilteredDetector(ScriptedDetector(faces), FaceCountLimit(count: count, ranking: ranking))
        let size = PixelSize(width: 400, height: 100)
        return try limit.detect(in: Frame(width: 400, height: 100), geometry: PreviewGeometry(frameSize: size)).map(\.box.x)
    }

    @Test func theLargestAreKeptTiesToTheFirstReported() throws {
        #expect(try Self.kept(1, by: .size) == [100])
        #expect(try Self.kept(3, by: .size) == [100, 200, 300])
    }

    @Test func theBestScoredAreKeptInReportingOrder() throws {
        #expect(try Self.kept(2, by: .score) == [0, 200])
    }

    @Test func fewerFacesThanTheLimitAreAllKept() throws {
        #expect(try Self.kept(4, by: .size) == [0, 100, 200, 300])
        #expect(try Self.kept(9, by: .score) == [0, 100, 200, 300])
    }

    /// A face dropped in an ignored zone counts for no limit: `FaceReport` puts the zones inside the limit.
    @Test func theLimitKeepsTheBestFacesOutsideIgnoredZones() throws {
        // An ignored square around the two 50-pixel faces (x 100 and 300, centres at 125 and 325, y 35).
        let square = [Point(x: 90, y: 0), Point(x: 400, y: 0), Point(x: 400, y: 100), Point(x: 90, y: 100)]
        let report = FaceReport(maxFaces: 1, ranking: .size)
        let detector = try report.wrapping(
            ScriptedDetector(Self.faces), zones: ZoneFilter(zones: [], ignored: [square]), engine: EngineSettings())
        let size = PixelSize(width: 400, height: 100)
        let kept = try detector.detect(in: Frame(width: 400, height: 100), geometry: PreviewGeometry(frameSize: size))
        #expect(kept.map(\.box.x) == [0])
        #expect(try report.wrapping(ScriptedDetector(Self.faces), zones: nil, engine: EngineSettings())
            .detect(in: Frame(width: 400, height: 100), geometry: PreviewGeometry(frameSize: size)).map(\.box.x) == [100])
    }

    @Test func aNewSourceReachesTheDetector() {
        let detector = ScriptedDetector(Self.faces)
        FilteredDetector(detector, FaceCountLimit(count: 1, ranking: .size)).beginSource()
        #expect(detector.sourcesBegun == 1)
    }
}
