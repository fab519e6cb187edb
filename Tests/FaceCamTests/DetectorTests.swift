import Testing
@testable import FaceCam

struct DetectorTests {
    @Test(arguments: try Expectation.all().filter { $0.options.detector == nil })
    func haarBoxesEqualOpenCVsOwn(_ expectation: Expectation) throws {
        let frame = try ImageFile.load(fixture(expectation.file)).frame
        let geometry = try expectation.settings.geometry(for: frame.size)
        let faces = try expectation.makeDetector().detect(in: frame, geometry: geometry)
        #expect(faces.map(\.box) == expectation.expectedBoxes)
        #expect(faces.map(\.preview) == faces.map { geometry.previewRect(of: $0.box) })
        #expect(faces.allSatisfy { $0.score == nil && $0.landmarks == nil })
    }

    /// Boxes within a pixel, scores within 0.01 and landmarks within a pixel of FaceDetectorYN's own.
    @Test(arguments: try Expectation.all().filter { $0.options.detector == "yunet" })
    func yunetFacesEqualOpenCVsOwn(_ expectation: Expectation) throws {
        let frame = try ImageFile.load(fixture(expectation.file)).frame
        let geometry = try expectation.settings.geometry(for: frame.size)
        let faces = try expectation.makeDetector().detect(in: frame, geometry: geometry)
        let expected = try #require(expectation.faces)
        try #require(faces.count == expected.count, "\(faces.map(\.box)) against \(expected.map(\.box))")
        for (face, reference) in zip(faces, expected) {
            let box = [face.box.x, face.box.y, face.box.width, face.box.height]
            #expect(zip(box, reference.box).allSatisfy { abs($0 - $1) <= 1 }, "\(box) against \(reference.box)")
            #expect(abs(try #require(face.score) - reference.score) <= 0.01)
            let points = try #require(face.landmarks).points
            #expect(zip(points, reference.landmarks).allSatisfy { abs($0.x - $1[0]) <= 1 && abs($0.y - $1[1]) <= 1 },
                    "\(points) against \(reference.landmarks)")
            #expect(face.preview == geometry.previewRect(of: face.box))
            #expect(face.previewLandmarks == face.landmarks?.applying(geometry.bufferToPreview))
        }
    }

    @Test func facesAreOrderedByYThenXThenWidth() throws {
        let detector = try FaceDetector(cascade: Cascade(resolving: Cascade.defaultName))
        let frame = try ImageFile.load(fixture("images/two-faces.jpg")).frame
        let faces = try detector.detect(in: frame, geometry: PreviewGeometry(frameSize: frame.size))
        #expect(faces.count == 2)
        let keys = faces.map { [$0.box.y, $0.box.x, $0.box.width] }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func cascadeNamesResolveInOpenCVsDataDirectories() throws {
        #expect(try Cascade(resolving: "haarcascade_frontalface_alt2").path == "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml")
        #expect(try Cascade(resolving: "lbpcascade_frontalface_improved.xml").path == "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml")
        #expect(try Cascade(resolving: "/usr/share/opencv4/haarcascades/haarcascade_eye.xml").path == "/usr/share/opencv4/haarcascades/haarcascade_eye.xml")
    }

    @Test func aMissingCascadeNamesEveryPathTried() {
        do {
            _ = try Cascade(resolving: "no_such_cascade", directories: ["/a", "/b"])
            Issue.record("resolved a cascade that does not exist")
        } catch {
            guard case .cascadeNotFound(let name, let tried) = error else { Issue.record("\(error)"); return }
            #expect(name == "no_such_cascade")
            #expect(tried == ["no_such_cascade", "/a/no_such_cascade.xml", "/b/no_such_cascade.xml"])
            #expect(error.description.contains("/a/no_such_cascade.xml, /b/no_such_cascade.xml"))
        }
    }

    @Test func aFileThatIsNotACascadeIsAnErrorNotACrash() throws {
        #expect {
            _ = try FaceDetector(cascade: Cascade(resolving: fixture("expectations.jsonl")))
        } throws: { error in
            guard case FaceCamError.cascadeUnloadable(let path, _) = error else { return false }
            return path.hasSuffix("expectations.jsonl")
        }
    }
}
