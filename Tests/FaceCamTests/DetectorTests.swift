import Foundation
import Synchronization
import Testing
@testable import FaceCam

struct DetectorTests {
    /// Each detector's cases are there to run: a filter that selects none would pass with no check.
    @Test func everyDetectorHasCases() throws {
        let detectors = try Expectation.all().map(\.options.detector)
        #expect(detectors.count { $0 == "haar" } >= 20 && detectors.count { $0 == "yunet" } >= 20)
        #expect(detectors.allSatisfy { $0 == "haar" || $0 == "yunet" }, "\(Set(detectors))")
    }

    @Test(arguments: try Expectation.all().filter { $0.options.detector == "haar" })
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

/// A detector that fails on every frame, as OpenCV may.
private final class FailingDetector: FrameFaceDetector {
    func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        throw .openCV("out of memory")
    }
}

struct DetectionFailureTests {
    /// A frame whose detection fails is one line that names its input and frame.
    @Test func aFailedDetectionNamesItsInputAndFrame() throws {
        let frame = Frame(width: 64, height: 48)
        let geometry = try GeometrySettings().geometry(for: frame.size)
        let delivered = Delivered()
        let pipeline = DetectionPipeline(detectors: [FailingDetector()]) { delivered.append($0) }
        pipeline.submit(FrameJob(source: "clip.mp4", index: 7, time: 0.5, frame: frame, geometry: geometry))
        pipeline.finish()
        let lines = delivered.all.map { completion -> String in
            if case .failure(let error) = completion { return error.description }
            return "not a failure"
        }
        #expect(lines == ["clip.mp4 frame 7: no faces reported, detection failed: OpenCV failed: out of memory"])
    }
}

private final class Delivered: Sendable {
    private let completions = Mutex<[Completion]>([])
    func append(_ completion: Completion) { completions.withLock { $0.append(completion) } }
    var all: [Completion] { completions.withLock { $0 } }
}
