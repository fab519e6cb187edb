import FaceCam
import FaceCamRecognition
import Foundation
import Testing

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// facecam's descriptors against dlib's own, computed by its Python bindings (PyPI's dlib-bin, in
/// .build/dlib-venv, which make test-deps makes) by Tests/Reference/dlib_descriptors.py on the same pixels.
struct FaceDescriberTests {
    static let python = repository.appendingPathComponent(".build/dlib-venv/bin/python").path
    static let script = repository.appendingPathComponent("Tests/Reference/dlib_descriptors.py").path

    /// The faces YuNet finds in the fixture photographs.
    static let photographs = ["images/astronaut.png", "images/camera.png", "images/grace_hopper.jpg", "images/two-faces.jpg",
                              "large-faces/face-720p.jpg"]

    struct ReferenceFace: Decodable {
        var chip: [Float]
        var mirrored: [Float]
        var descriptor: [Float]
        var points: [[Double]]
    }

    /// dlib's descriptors and points of `boxes` in `frame`.
    static func reference(_ frame: Frame, boxes: [PixelRect], models: RecognitionModels) throws -> [ReferenceFace] {
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: make test-deps installs dlib-bin there")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dlib-reference-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var ppm = Data("P6\n\(frame.width) \(frame.height)\n255\n".utf8)
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let pixel = frame.pixel(x: x, y: y)
                ppm.append(contentsOf: [pixel.red, pixel.green, pixel.blue])
            }
        }
        let image = directory.appendingPathComponent("frame.ppm")
        try ppm.write(to: image)
        let request = directory.appendingPathComponent("request.json")
        try JSONSerialization.data(withJSONObject: [
            "image": image.path, "boxes": boxes.map { [$0.x, $0.y, $0.width, $0.height] },
            "shape_predictor": models.shapePredictor, "network": models.network,
        ]).write(to: request)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, request.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(script) failed")
        struct Answer: Decodable { var faces: [ReferenceFace] }
        return try JSONDecoder().decode(Answer.self, from: data).faces
    }

    /// Every fixture face YuNet finds: each of the 128 values of the chip's descriptor, of the mirrored
    /// chip's and of their mean within 1e-4 of dlib's, and the five points where dlib's predictor put them.
    @Test func descriptorsEqualDlibsOwn() throws {
        let models = try RecognitionModels()
        let describer = try FaceDescriber(models: models)
        let detector = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet))
        var faces = 0
        for name in Self.photographs {
            let frame = try ImageFile.load(repository.appendingPathComponent("Fixtures/" + name).path).frame
            let boxes = try detector.detect(in: frame, geometry: PreviewGeometry(frameSize: frame.size)).map(\.box)
            try #require(!boxes.isEmpty, "\(name): YuNet found no face")
            let expected = try Self.reference(frame, boxes: boxes, models: models)
            try #require(expected.count == boxes.count)
            for (box, reference) in zip(boxes, expected) {
                let described = try describer.describe(box, in: frame)
                for (mine, dlibs, what) in [(described.chip, reference.chip, "chip"), (described.mirrored, reference.mirrored, "mirrored"),
                                            (described.descriptor, reference.descriptor, "mean")] {
                    let worst = zip(mine.values, dlibs).map { abs($0 - $1) }.max() ?? .infinity
                    #expect(worst <= 1e-4, "\(name) \(box) \(what): a value differs from dlib's by \(worst)")
                }
                #expect(described.points.map { [$0.x, $0.y] } == reference.points, "\(name) \(box)")
                faces += 1
            }
        }
        #expect(faces >= 6)
    }

    /// One photograph scaled (astronaut.png, and face-720p.jpg made from it) lies within dlib's pair
    /// threshold, 0.6; another person (Grace Hopper) beyond it.
    @Test func aFaceIsNearerItselfThanAnother() throws {
        let describer = try FaceDescriber(models: RecognitionModels())
        let detector = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet))
        func descriptor(_ name: String) throws -> FaceDescriptor {
            let frame = try ImageFile.load(repository.appendingPathComponent("Fixtures/" + name).path).frame
            let face = try #require(try detector.detect(in: frame, geometry: PreviewGeometry(frameSize: frame.size)).first)
            return try describer.describe(face.box, in: frame).descriptor
        }
        let astronaut = try descriptor("images/astronaut.png")
        let scaled = try descriptor("large-faces/face-720p.jpg")
        let hopper = try descriptor("images/grace_hopper.jpg")
        #expect(astronaut.distance(to: scaled) < 0.6, "\(astronaut.distance(to: scaled))")
        #expect(astronaut.distance(to: hopper) > 0.6, "\(astronaut.distance(to: hopper))")
        #expect(astronaut.distance(to: astronaut) == 0)
    }

    /// Files that are not dlib's models are one line naming the file.
    @Test func aFileThatIsNoModelIsRefusedByName() throws {
        let models = try RecognitionModels()
        let wrong = RecognitionModels(shapePredictor: models.network, network: models.network)
        #expect {
            try FaceDescriber(models: wrong)
        } throws: { error in
            guard case RecognitionError.modelUnloadable(let reason) = error else { return false }
            return reason.hasPrefix(models.network + ": not dlib's 5-point shape predictor") && !reason.contains("\n")
        }
        #expect(throws: RecognitionError.modelNotFound(
            RecognitionModels.shapePredictorFile, tried: ["/nonexistent/" + RecognitionModels.shapePredictorFile])) {
            _ = try RecognitionModels(shippedIn: ["/nonexistent"]).shapePredictor
        }
    }
}

/// The described cut `FaceRecognizer` takes equals the whole frame's description, and a photograph's
/// orientation tag does not change who a face is.
struct FaceRecognizerTests {
    static func detector() throws -> ModelFaceDetector { try ModelFaceDetector(model: FaceModelFile(shipped: .yunet)) }

    @Test func aCutAroundTheFaceDescribesItAsTheWholeFrame() throws {
        let describer = try FaceDescriber(models: RecognitionModels())
        for name in FaceDescriberTests.photographs {
            let frame = try ImageFile.load(repository.appendingPathComponent("Fixtures/" + name).path).frame
            let geometry = try PreviewGeometry(frameSize: frame.size)
            for face in try Self.detector().detect(in: frame, geometry: geometry) {
                let whole = try describer.describe(face.box, in: frame)
                let cut = try #require(try FaceRecognizer.describe(face, in: frame, geometry: geometry, with: describer))
                let worst = zip(whole.descriptor.values, cut.descriptor.values).map { abs($0 - $1) }.max() ?? .infinity
                #expect(worst <= 1e-4, "\(name) \(face.box): \(worst)")
            }
        }
    }

    /// Fixtures/exif holds one portrait stored in the eight EXIF orientations, each with the tag
    /// that turns it back: each is the same face, named the same, at nearly no distance.
    @Test func aTurnedPhotographIsTheSamePerson() throws {
        let describer = try FaceDescriber(models: RecognitionModels())
        var described: [FaceDescriptor] = []
        for name in (1...8).map({ "portrait-\($0).jpg" }) {
            let image = try ImageFile.load(repository.appendingPathComponent("Fixtures/exif/" + name).path)
            let geometry = try PreviewGeometry(frameSize: image.frame.size, orientation: image.uprightOrientation)
            let face = try #require(try Self.detector().detect(in: image.frame, geometry: geometry).first, "\(name)")
            described.append(try #require(try FaceRecognizer.describe(face, in: image.frame, geometry: geometry, with: describer)).descriptor)
        }
        let enrolled = EnrolledFaces([("portrait", described[0])], tolerance: 0.5)
        for (index, descriptor) in described.enumerated() {
            let identity = enrolled.identify(descriptor)
            #expect(identity.name == "portrait" && (identity.distance ?? 1) < 0.1, "portrait-\(index + 1): \(identity)")
        }
    }

    /// Distances are between unit-length descriptors, so a descriptor's length does not count: descriptors
    /// at angles a and b in a plane lie 2 sin(|a - b| / 2) apart, whatever their lengths.
    @Test func theNearestPersonWithinTheToleranceIsNamed() throws {
        func descriptor(_ angle: Double, length: Double = 1) -> FaceDescriptor {
            FaceDescriptor([Float(length * cos(angle)), Float(length * sin(angle))] + [Float](repeating: 0, count: 126))!
        }
        let enrolled = EnrolledFaces(
            [("a", descriptor(0)), ("b", descriptor(1, length: 0.5)), ("a", descriptor(0.2, length: 2))], tolerance: 0.3)
        let nearA = enrolled.identify(descriptor(0.15, length: 0.7)), nearB = enrolled.identify(descriptor(0.8, length: 3))
        #expect(nearA.name == "a" && abs(nearA.distance! - 2 * sin(0.025)) < 1e-6, "\(nearA)")
        #expect(nearB.name == "b" && abs(nearB.distance! - 2 * sin(0.1)) < 1e-6, "\(nearB)")
        // 0.33 from the nearer a and 0.47 from b: beyond the tolerance, however far the others are.
        let between = enrolled.identify(descriptor(0.53))
        #expect(between.name == nil && abs(between.distance! - 2 * sin(0.165)) < 1e-6, "\(between)")
        #expect(EnrolledFaces([], tolerance: 0.3).identify(descriptor(0)) == FaceIdentity(name: nil, distance: nil))
        // Two people at the same distance: neither is named.
        let twins = EnrolledFaces([("a", descriptor(0.1)), ("b", descriptor(0.1))], tolerance: 0.3)
        #expect(twins.identify(descriptor(0.1)).name == nil && twins.identify(descriptor(0.1)).distance! < 1e-6)
        let zero = FaceDescriptor([Float](repeating: 0, count: 128))!
        #expect(zero.unitLength == zero)
    }

    /// two-faces.jpg holds astronaut.png's face (Collins) and grace_hopper.jpg's (Hopper): sparing Hopper
    /// leaves out her face alone, and the count shared by two detectors says how many were left out.
    @Test func sparingLeavesOutOnlyTheFacesOfThoseSpared() throws {
        let describer = try FaceDescriber(models: RecognitionModels())
        func described(_ name: String) throws -> FaceDescriptor {
            let frame = try ImageFile.load(repository.appendingPathComponent("Fixtures/images/" + name).path).frame
            let geometry = try PreviewGeometry(frameSize: frame.size)
            let face = try #require(try Self.detector().detect(in: frame, geometry: geometry).first)
            return try #require(try FaceRecognizer.describe(face, in: frame, geometry: geometry, with: describer)).descriptor
        }
        let enrolled = EnrolledFaces([("Collins", try described("astronaut.png")), ("Hopper", try described("grace_hopper.jpg"))],
                                     tolerance: 0.4)
        let frame = try ImageFile.load(repository.appendingPathComponent("Fixtures/images/two-faces.jpg").path).frame
        let geometry = try PreviewGeometry(frameSize: frame.size)
        let count = SparingDetector.Count()
        let sparingHopper = SparingDetector(FaceRecognizer(try Self.detector(), describer: describer, enrolled: enrolled),
                                            sparing: ["Hopper"], count: count)
        let kept = try sparingHopper.detect(in: frame, geometry: geometry)
        #expect(kept.map { $0.identity?.name } == ["Collins"])
        #expect(count.total == 1)
        let sparingNobody = SparingDetector(FaceRecognizer(try Self.detector(), describer: describer, enrolled: enrolled),
                                            sparing: ["Lovelace"], count: count)
        #expect(try sparingNobody.detect(in: frame, geometry: geometry).count == 2)
        #expect(count.total == 1)
    }
}
