import Testing
@testable import FaceCam

struct DetectorTests {
    @Test(arguments: try Expectation.all())
    func boxesEqualOpenCVsOwn(_ expectation: Expectation) throws {
        let detector = try FaceDetector(
            cascade: Cascade(resolving: expectation.options.cascade ?? Cascade.defaultName),
            parameters: expectation.parameters)
        let frame = try ImageFile.load(fixture(expectation.file))
        let geometry = try expectation.settings.geometry(for: frame.size)
        let faces = try detector.detect(in: frame, geometry: geometry)
        #expect(faces.map(\.box) == expectation.expectedBoxes)
        #expect(faces.map(\.preview) == faces.map { geometry.previewRect(of: $0.box) })
    }

    @Test func facesAreOrderedByYThenXThenWidth() throws {
        let detector = try FaceDetector(cascade: Cascade(resolving: Cascade.defaultName))
        let frame = try ImageFile.load(fixture("images/two-faces.jpg"))
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
