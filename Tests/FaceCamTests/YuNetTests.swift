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
    /// returns a fragment or nothing (see the README); facecam's extra search finds the whole face, once.
    @Test(arguments: ["large-faces/face-720p.jpg", "large-faces/face-1080p.jpg"])
    func facesLargerThanTheModelsRangeAreFound(_ file: String) throws {
        let expected = try #require(try Self.truth()[file])
        let frame = try ImageFile.load(fixture(file))
        let faces = try YuNetDetector(model: YuNetModel()).detect(in: frame, geometry: PreviewGeometry(frameSize: frame.size))
        try #require(faces.count == 1, "\(faces.map(\.box))")
        #expect(faces[0].box.overlap(with: expected) >= 0.7, "\(faces[0].box) against \(expected)")
        #expect(faces[0].score.map { $0 >= 0.9 } == true)
        // Its landmarks lie inside its box.
        let box = faces[0].box.rect
        #expect(faces[0].landmarks?.points.allSatisfy { $0.x > box.minX && $0.x < box.maxX && $0.y > box.minY && $0.y < box.maxY } == true)
    }

    @Test func largeFacesMapBackThroughTheOrientation() throws {
        let expected = try #require(try Self.truth()["large-faces/face-720p.jpg"])
        let frame = try ImageFile.load(fixture("large-faces/face-720p.jpg"))
        // Mirrored, the face is still upright; its box in the buffer is where it was.
        let geometry = try PreviewGeometry(frameSize: frame.size, orientation: .upMirrored)
        let faces = try YuNetDetector(model: YuNetModel()).detect(in: frame, geometry: geometry)
        try #require(faces.count == 1, "\(faces.map(\.box))")
        #expect(faces[0].box.overlap(with: expected) >= 0.7, "\(faces[0].box) against \(expected)")
    }

    @Test func theShippedModelIsFoundBesideTheBuild() throws {
        let model = try YuNetModel()
        #expect(model.path.hasSuffix("/facecam_FaceCam.resources/YuNet/" + YuNetModel.fileName))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model.path))
        #expect(bytes.count == 345_478)
    }

    @Test func modelDirectoriesGoFromTheExecutableToTheSystem() {
        #expect(YuNetModel.searchDirectories(executable: "/opt/facecam/bin/facecam") == [
            "/opt/facecam/bin/facecam_FaceCam.resources/YuNet", "/opt/facecam/bin", "/opt/facecam/bin/../share/facecam",
            "/usr/local/share/facecam", "/usr/share/facecam",
        ])
    }

    @Test func aMissingModelNamesEveryPathTried() {
        #expect {
            _ = try YuNetModel(shippedIn: ["/nonexistent/a", "/nonexistent/b"])
        } throws: { error in
            guard case FaceCamError.modelNotFound(let tried) = error else { return false }
            return tried == ["/nonexistent/a/" + YuNetModel.fileName, "/nonexistent/b/" + YuNetModel.fileName]
        }
    }

    @Test(arguments: [Data("not a model".utf8), Data()])
    func aCorruptModelIsAnErrorNamingItsPath(_ contents: Data) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("corrupt-\(UUID().uuidString).onnx").path
        try contents.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try YuNetDetector(model: YuNetModel(path: path))
        } throws: { error in
            guard case FaceCamError.modelUnloadable(let failed, let reason) = error else { return false }
            return failed == path && !reason.contains("\n") && "\(error)".contains(path)
        }
    }

    @Test func aModelThatIsNotYuNetIsAnError() throws {
        // A cascade XML is no ONNX network.
        #expect(throws: FaceCamError.self) {
            _ = try YuNetDetector(model: YuNetModel(path: "/usr/share/opencv4/haarcascades/haarcascade_eye.xml"))
        }
    }

    /// Fast mode searches the frame shrunk to the search width: the same faces, boxes a little coarser.
    @Test func fastModeSearchesAShrunkFrame() throws {
        let frame = try ImageFile.load(fixture("images/two-faces.jpg"))
        let geometry = try PreviewGeometry(frameSize: frame.size)
        let exact = try YuNetDetector(model: YuNetModel()).detect(in: frame, geometry: geometry)
        let fast = try YuNetDetector(model: YuNetModel(), searchWidth: 512).detect(in: frame, geometry: geometry)
        try #require(exact.count == 2 && fast.count == 2)
        for (a, b) in zip(exact, fast) {
            #expect(a.box.overlap(with: b.box) >= 0.8, "\(a.box) against \(b.box)")
        }
        #expect(exact.map(\.box) != fast.map(\.box))
    }
}
