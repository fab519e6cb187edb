import Foundation
import Testing
@testable import FaceCam

/// The search strategies of ModelFaceDetector: scales, tiles, merging and the large-face search,
/// watched through a model that records what it is asked and answers with set faces.
struct ModelFaceDetectorTests {
    /// Records each search and answers with `answer`, in upright pixels.
    final class ScriptedModel: FaceSearching {
        let kind: FaceModelKind
        var searches: [(region: PixelRect, size: PixelSize)] = []
        var answer: (PixelRect, PixelSize) -> [ModelFace]

        init(kind: FaceModelKind = .yunet, answer: @escaping (PixelRect, PixelSize) -> [ModelFace] = { _, _ in [] }) {
            self.kind = kind
            self.answer = answer
        }

        func prepare(_ frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) {}

        func search(_ region: PixelRect, at size: PixelSize) throws(FaceCamError) -> [ModelFace] {
            searches.append((region, size))
            return answer(region, size)
        }
    }

    static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double, score: Double) -> ModelFace {
        let points = (0..<5).map { Point(x: x + w * Double($0 + 1) / 6, y: y + h / 2) }
        return ModelFace(box: Rect(x: x, y: y, width: w, height: h), landmarks: FaceLandmarks(points)!, score: score)
    }

    /// The scripted faces' threshold: they score 0.6 and more unless a test says otherwise.
    static let threshold = 0.5

    static func detect(
        _ model: ScriptedModel, size: PixelSize, scales: [Double], searchWidth: Int? = nil, focused: Bool = false
    ) throws -> [Face] {
        let detector = ModelFaceDetector(
            searcher: model, parameters: ModelParameters(scoreThreshold: threshold), scales: scales, searchWidth: searchWidth,
            focused: focused)
        return try detector.detect(in: Frame(width: size.width, height: size.height), geometry: PreviewGeometry(frameSize: size))
    }

    @Test func oneScaleIsOneSearchOfTheWholeFrame() throws {
        let model = ScriptedModel()
        _ = try Self.detect(model, size: PixelSize(width: 640, height: 480), scales: [1])
        #expect(model.searches.count == 2) // and the large-face search: 480 > 300
        #expect(model.searches[0].region == PixelRect(x: 0, y: 0, width: 640, height: 480))
        #expect(model.searches[0].size == PixelSize(width: 640, height: 480))
        #expect(model.searches[1].size == PixelSize(width: 320, height: 240))
    }

    @Test func scaleTwoEnlargesAndNeedsNoLargeFaceSearchOnSmallFrames() throws {
        let model = ScriptedModel()
        _ = try Self.detect(model, size: PixelSize(width: 416, height: 280), scales: [1, 2])
        #expect(model.searches.map(\.size) == [PixelSize(width: 416, height: 280), PixelSize(width: 832, height: 560)])
    }

    /// An enlarged scale over the model's largest search is searched in equal tiles, each within it,
    /// that cover the frame and overlap by at least the tile overlap.
    @Test(arguments: FaceModelKind.allCases)
    func largeEnlargementsAreTiled(_ kind: FaceModelKind) throws {
        let model = ScriptedModel(kind: kind)
        let frame = PixelSize(width: 3000, height: 2000)
        _ = try Self.detect(model, size: frame, scales: [2])
        let tiles = model.searches.dropLast() // the large-face search comes last
        #expect(tiles.count > 1)
        let (width, height) = (tiles[0].region.width, tiles[0].region.height)
        for tile in tiles {
            #expect(tile.size == PixelSize(width: width * 2, height: height * 2))
            #expect(Double(tile.size.width * tile.size.height) <= kind.largestSearch)
            #expect(tile.region.width == width && tile.region.height == height)
            #expect(tile.region.x >= 0 && tile.region.y >= 0 && tile.region.x + width <= 3000 && tile.region.y + height <= 2000)
        }
        // Every point of the frame lies in a tile, and neighbouring tiles overlap by the overlap at least.
        let xs = Set(tiles.map(\.region.x)).sorted(), ys = Set(tiles.map(\.region.y)).sorted()
        #expect(xs.first == 0 && xs.last! + width == 3000 && ys.first == 0 && ys.last! + height == 2000)
        let overlap = ModelFaceDetector.tileOverlap / 2
        for (a, b) in zip(xs, xs.dropFirst()) { #expect(a + width - b >= overlap) }
        for (a, b) in zip(ys, ys.dropFirst()) { #expect(a + height - b >= overlap) }
    }

    /// Of the grids whose tiles fit, the one with the fewest pixels, worked out by hand: a 1024x680
    /// photograph at 2 (overlap 160 of its pixels), CenterFace's 1280x1024 at most. One column would
    /// need 4 rows of 1024x290 (1,187,840 pixels in all), two columns 2 rows of 592x420 (994,560),
    /// three columns one row of 448x680 (913,920), four 376x680 (1,022,720).
    @Test func tilesAreTheGridWithTheFewestPixels() throws {
        let model = ScriptedModel(kind: .centerface)
        _ = try Self.detect(model, size: PixelSize(width: 1024, height: 680), scales: [1, 2])
        let tiles = model.searches.filter { $0.size.width == 896 }
        #expect(tiles.map(\.region) == [0, 288, 576].map { PixelRect(x: $0, y: 0, width: 448, height: 680) })
        #expect(tiles.allSatisfy { $0.size == PixelSize(width: 896, height: 1360) })
        #expect(model.searches.count == 5) // the photograph at 1, the three tiles and the large-face search
    }

    /// A face cut by a tile's inner edge is left to the tile that holds it whole; one at the frame's own edge stays.
    @Test func facesCutByATileEdgeAreLeftToTheirNeighbour() throws {
        let model = ScriptedModel { region, _ in
            let side = Double(region.width)
            guard region.x == 0, region.y == 0 else { return [] }
            // A face cut at the first tile's right edge, and one at the frame's top-left corner.
            return [Self.face(side - 20, 100, 20, 30, score: 0.95), Self.face(0, 0, 20, 30, score: 0.95)]
        }
        let faces = try Self.detect(model, size: PixelSize(width: 3000, height: 2000), scales: [2])
        #expect(faces.map(\.box) == [PixelRect(x: 0, y: 0, width: 20, height: 30)])
    }

    /// Across scales the better of two overlapping faces stays, with its own score and landmarks;
    /// a face under 16 pixels at the smaller scale is left to the larger.
    @Test func scalesMergeByNonMaximumSuppression() throws {
        let model = ScriptedModel { _, size in
            size.width == 416
                ? [Self.face(100, 100, 40, 50, score: 0.8), Self.face(300, 100, 10, 12, score: 0.99)]
                : [Self.face(102, 101, 40, 48, score: 0.9), Self.face(200, 200, 12, 14, score: 0.7)]
        }
        let faces = try Self.detect(model, size: PixelSize(width: 416, height: 280), scales: [1, 2])
        #expect(faces.map(\.box) == [PixelRect(x: 102, y: 101, width: 40, height: 48), PixelRect(x: 200, y: 200, width: 12, height: 14)])
        #expect(faces.map(\.score) == [0.9, 0.7])
        #expect(faces[0].landmarks?.points.first == Point(x: 102 + 40.0 / 6, y: 125))
    }

    /// The large-face search adds a face too large for the model and drops its fragments; the small
    /// faces inside a large box that scores no better than two of them stay, and the box does not.
    @Test(arguments: [true, false])
    func largeFacesReplaceTheirFragmentsButNotAGroup(_ group: Bool) throws {
        let frame = PixelSize(width: 1280, height: 720)
        let model = ScriptedModel { _, size in
            if size.width == 1280 {
                return group
                    ? [Self.face(500, 200, 60, 70, score: 0.97), Self.face(600, 300, 60, 70, score: 0.96)]
                    : [Self.face(520, 250, 200, 220, score: 0.99), Self.face(600, 300, 30, 30, score: 0.6)]
            }
            // The shrunk copy's search: one face of 500 pixels (answered in the frame's pixels, as the shim maps them).
            return [Self.face(480, 150, 500, 500, score: 0.95)]
        }
        let faces = try Self.detect(model, size: frame, scales: [1])
        if group {
            #expect(faces.count == 2 && faces.allSatisfy { $0.box.width == 60 })
        } else {
            // The fragment (200x220, more than a quarter of the face) goes; the small face inside stays.
            #expect(faces.map(\.box.width).sorted() == [30, 500])
        }
    }

    /// One scale keeps every face the model finds, small ones too, even on a frame searched shrunk to the 4K cap.
    @Test func oneScaleKeepsSmallFacesOnAFrameOverTheCap() throws {
        let model = ScriptedModel { _, size in size.width < 8000 ? [Self.face(100, 100, 10, 12, score: 0.95)] : [] }
        let faces = try Self.detect(model, size: PixelSize(width: 8000, height: 6000), scales: [1])
        #expect(model.searches[0].size.width < 8000)
        #expect(faces.map(\.box) == [PixelRect(x: 100, y: 100, width: 10, height: 12)])
    }

    /// Fast mode shrinks first; the scales apply to the shrunk frame.
    @Test func fastModeScalesTheShrunkFrame() throws {
        let model = ScriptedModel()
        _ = try Self.detect(model, size: PixelSize(width: 1280, height: 720), scales: [1, 2], searchWidth: 640)
        #expect(model.searches.prefix(2).map(\.size) == [PixelSize(width: 640, height: 360), PixelSize(width: 1280, height: 720)])
    }

    /// Focus: the enlarged scale is searched only in the one 96-pixel tile around each trace (a face
    /// scoring under the threshold but at least half of it, or one too small to keep at scale 1);
    /// neither a confident face nor one scoring under half the threshold is a trace, and no trace is reported.
    @Test func focusSearchesTheEnlargedScaleAroundTracesOnly() throws {
        let frame = PixelSize(width: 640, height: 480)
        let faint = Self.face(300, 200, 10, 12, score: 0.3), tiny = Self.face(500, 400, 8, 9, score: 0.9)
        let model = ScriptedModel { _, size in
            switch size.width {
            case 640: [faint, tiny, Self.face(100, 100, 60, 70, score: 0.9), Self.face(50, 400, 10, 10, score: 0.2)]
            case 96: [Self.face(301, 201, 9, 11, score: 0.8)] // a tile's face, answered in the frame's pixels
            default: []
            }
        }
        let faces = try Self.detect(model, size: frame, scales: [1, 2], focused: true)
        let tiles = model.searches.filter { $0.size == PixelSize(width: 96, height: 96) }
        #expect(model.searches.count == 2 + tiles.count) // scale 1, the tiles, the large-face search
        #expect(!model.searches.contains { $0.size == PixelSize(width: 1280, height: 960) })
        #expect(tiles.count == 2)
        for trace in [faint, tiny] {
            #expect(tiles.contains { $0.region.rect.contains(trace.box) })
        }
        for tile in tiles {
            #expect(tile.region.width == 48 && tile.region.height == 48)
        }
        #expect(faces.map(\.box) == [PixelRect(x: 100, y: 100, width: 60, height: 70), PixelRect(x: 301, y: 201, width: 9, height: 11)])
    }

    /// Focus: a 640x480 frame's scale 2 has 1,228,800 pixels and a tile 9,216, so 13 tiles stay
    /// within the budget (a tenth) and 14 (a crowd) send the scale back to a search everywhere,
    /// the same searches as without focus.
    @Test(arguments: [13, 14])
    func focusSearchesEverywhereOverTheBudget(traceCount: Int) throws {
        let frame = PixelSize(width: 640, height: 480)
        // Traces 64 pixels apart, more than a tile's 48: each needs a tile of its own.
        let traces: [ModelFace] = (0..<traceCount).map { index in
            let x = 40 + index % 9 * 64, y = 40 + index / 9 * 64
            return Self.face(Double(x), Double(y), 8, 8, score: 0.3)
        }
        let focused = ScriptedModel { _, size in size.width == 640 ? traces : [] }
        _ = try Self.detect(focused, size: frame, scales: [1, 2], focused: true)
        let tiles = focused.searches.filter { $0.size == PixelSize(width: 96, height: 96) }
        if traceCount == 13 {
            #expect(tiles.count == 13)
            #expect(!focused.searches.contains { $0.size == PixelSize(width: 1280, height: 960) })
        } else {
            let everywhere = ScriptedModel { _, size in size.width == 640 ? traces : [] }
            _ = try Self.detect(everywhere, size: frame, scales: [1, 2])
            #expect(tiles.isEmpty)
            #expect(focused.searches.map { $0.size } == everywhere.searches.map { $0.size })
        }
    }

    /// Focus: a face too small to keep at scale 1 but too tall for a tile must still be looked at
    /// again, so the scale is searched everywhere; a faint face as large is not a trace.
    @Test(arguments: [true, false])
    func aFaceTooSmallToKeepButTooLargeForATileSearchesEverywhere(confident: Bool) throws {
        let model = ScriptedModel { _, size in size.width == 640 ? [Self.face(300, 200, 14, 40, score: confident ? 0.9 : 0.3)] : [] }
        _ = try Self.detect(model, size: PixelSize(width: 640, height: 480), scales: [1, 2], focused: true)
        #expect(model.searches.contains { $0.size == PixelSize(width: 1280, height: 960) } == confident)
        #expect(!model.searches.contains { $0.size == PixelSize(width: 96, height: 96) })
    }

    /// Focus: a trace reaching past the frame's edge (YuNet's boxes may) gets the tile at the edge.
    @Test func aTraceAcrossTheFramesEdgeGetsATile() throws {
        let model = ScriptedModel { _, size in size.width == 640 ? [Self.face(-3, 100, 10, 12, score: 0.3)] : [] }
        _ = try Self.detect(model, size: PixelSize(width: 640, height: 480), scales: [1, 2], focused: true)
        let tiles = model.searches.filter { $0.size == PixelSize(width: 96, height: 96) }
        #expect(tiles.map(\.region.x) == [0])
    }
}
