import Foundation
import Testing
@testable import FaceCam

struct YuNetTests {
    /// Fixtures/large-faces/truth.json: each frame's face, as YuNet boxes it at the photograph's own size, scaled up.
    static func truth() throws -> [String: PixelRect] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("large-faces/truth.json"))
        return try JSONDecoder().decode([String: [Int]].self, from: data).mapValues {
            PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3])
        }
    }

    /// A face filling most of a 1280x720 or 1920x1080 frame, beyond the model's range: OpenCV alone
    /// returns a fragment or nothing (see docs/reference/detectors.md); facecam's extra search finds the whole face, once.
    @Test(arguments: ["large-faces/face-720p.jpg", "large-faces/face-1080p.jpg"])
    func facesLargerThanTheModelsRangeAreFound(_ file: String) throws {
        let expected = try #require(try Self.truth()[file])
        let frame = try ImageFile.load(fixture(file)).frame
        let faces = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet)).detect(in: frame, geometry: PreviewGeometry(frameSize: frame.size))
        try #require(faces.count == 1, "\(faces.map(\.box))")
        #expect(faces[0].box.overlap(with: expected) >= 0.7, "\(faces[0].box) against \(expected)")
        #expect(faces[0].score.map { $0 >= 0.9 } == true)
        // Its landmarks lie inside its box.
        let box = faces[0].box.rect
        #expect(faces[0].landmarks?.points.allSatisfy { $0.x > box.minX && $0.x < box.maxX && $0.y > box.minY && $0.y < box.maxY } == true)
    }

    @Test func largeFacesMapBackThroughTheOrientation() throws {
        let expected = try #require(try Self.truth()["large-faces/face-720p.jpg"])
        let frame = try ImageFile.load(fixture("large-faces/face-720p.jpg")).frame
        // Mirrored, the face is still upright; its box in the buffer is where it was.
        let geometry = try PreviewGeometry(frameSize: frame.size, orientation: .upMirrored)
        let faces = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet)).detect(in: frame, geometry: geometry)
        try #require(faces.count == 1, "\(faces.map(\.box))")
        #expect(faces[0].box.overlap(with: expected) >= 0.7, "\(faces[0].box) against \(expected)")
    }

    @Test func theShippedModelIsFoundBesideTheBuild() throws {
        let model = try FaceModelFile(shipped: .yunet)
        #expect(model.path.hasSuffix("/facecam_FaceCam.resources/YuNet/" + FaceModelKind.yunet.fileName))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model.path))
        #expect(bytes.count == 345_478)
    }

    @Test func modelDirectoriesGoFromTheExecutableToTheSystem() {
        #expect(FaceModelFile.searchDirectories(.yunet, executable: "/opt/facecam/bin/facecam") == [
            "/opt/facecam/bin/facecam_FaceCam.resources/YuNet", "/opt/facecam/bin", "/opt/facecam/bin/../share/facecam",
            "/usr/local/share/facecam", "/usr/share/facecam",
        ])
    }

    @Test func aMissingModelNamesEveryPathTried() {
        #expect {
            _ = try FaceModelFile(shipped: .yunet, in: ["/nonexistent/a", "/nonexistent/b"])
        } throws: { error in
            guard case FaceCamError.modelNotFound("YuNet", let tried) = error else { return false }
            let name = FaceModelKind.yunet.fileName
            return tried == ["/nonexistent/a/" + name, "/nonexistent/b/" + name]
        }
    }

    @Test(arguments: [Data("not a model".utf8), Data()])
    func aCorruptModelIsAnErrorNamingItsPath(_ contents: Data) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID().uuidString).onnx").path
        try contents.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try ModelFaceDetector(model: FaceModelFile(.yunet, path: path))
        } throws: { error in
            guard case FaceCamError.modelUnloadable("YuNet", let failed, let reason) = error else { return false }
            return failed == path && !reason.contains("\n") && "\(error)".contains(path)
        }
    }

    @Test func aModelThatIsNotYuNetIsAnError() throws {
        // A cascade XML is no ONNX network.
        #expect(throws: FaceCamError.self) {
            _ = try ModelFaceDetector(model: FaceModelFile(.yunet, path: "/usr/share/opencv4/haarcascades/haarcascade_eye.xml"))
        }
    }

    @Test func searchesStayWithin4KPixels() {
        let size = { (w: Int, h: Int, fast: Int?) in
            let plan = SearchPlan(upright: PixelSize(width: w, height: h), kind: .yunet, scales: [1], searchWidth: fast)
            return plan.searches[0].size
        }
        // Up to 3840x2160 a frame is searched as it is; larger ones shrink, keeping their shape.
        #expect(size(3840, 2160, nil) == PixelSize(width: 3840, height: 2160))
        #expect(size(640, 480, nil) == PixelSize(width: 640, height: 480))
        let photo = size(8000, 6000, nil)
        #expect(Double(photo.width * photo.height) <= ModelFaceDetector.maximumSearchPixels + 8000)
        #expect(abs(Double(photo.width) / Double(photo.height) - 8000.0 / 6000) < 0.01)
        // Fast mode shrinks to its width when that at least halves the pixels (905 = 640 x 1.414);
        // a frame narrower than that is searched as it is, never enlarged.
        #expect(size(1280, 720, 640) == PixelSize(width: 640, height: 360))
        #expect(size(906, 510, 640) == PixelSize(width: 640, height: 360))
        #expect(size(904, 510, 640) == PixelSize(width: 904, height: 510))
        #expect(size(720, 528, 640) == PixelSize(width: 720, height: 528))
        #expect(size(480, 270, 640) == PixelSize(width: 480, height: 270))
    }

    /// A frame over the 4K cap (two-faces.jpg enlarged 4 times, 4096x2048) is searched shrunk:
    /// the same two faces come back, in the large frame's pixels.
    @Test func aFrameOverTheCapFindsItsFacesInItsOwnPixels() throws {
        let small = try ImageFile.load(fixture("images/two-faces.jpg")).frame
        var large = Frame(width: small.width * 4, height: small.height * 4)
        for y in 0..<large.height {
            for x in 0..<large.width { large.setPixel(x: x, y: y, to: small.pixel(x: x / 4, y: y / 4)) }
        }
        let detector = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet))
        let expected = try detector.detect(in: small, geometry: PreviewGeometry(frameSize: small.size))
        let found = try detector.detect(in: large, geometry: PreviewGeometry(frameSize: large.size))
        try #require(found.count == expected.count && expected.count == 2, "\(found.map(\.box))")
        for (face, original) in zip(found, expected) {
            let scaled = PixelRect(x: original.box.x * 4, y: original.box.y * 4, width: original.box.width * 4, height: original.box.height * 4)
            #expect(face.box.overlap(with: scaled) >= 0.8, "\(face.box) against \(scaled)")
        }
    }

    /// Fast mode searches the frame shrunk to the search width: the same faces, boxes a little coarser.
    @Test func fastModeSearchesAShrunkFrame() throws {
        let frame = try ImageFile.load(fixture("images/two-faces.jpg")).frame
        let geometry = try PreviewGeometry(frameSize: frame.size)
        let exact = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet)).detect(in: frame, geometry: geometry)
        let fast = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet), searchWidth: 512).detect(in: frame, geometry: geometry)
        try #require(exact.count == 2 && fast.count == 2)
        for (a, b) in zip(exact, fast) {
            #expect(a.box.overlap(with: b.box) >= 0.8, "\(a.box) against \(b.box)")
        }
        #expect(exact.map(\.box) != fast.map(\.box))
    }
}
