import Foundation
import Testing

/// facecam --detector yunet end to end: options, the shipped model, live use.
struct YuNetCommandTests {
    /// A model that cannot be read, on the default engine (OpenVINO, then OpenCV's dnn tried): one line naming it, status
    /// 64, nothing on standard output. What the line says for each kind of model: `DetectorPlanTests`.
    @Test func aCorruptModelIsOneLineOnTheDefaultEngine() throws {
        let directory = try temporaryDirectory("model")
        defer { try? FileManager.default.removeItem(at: directory) }
        let corrupt = directory.appendingPathComponent("corrupt.onnx").path
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: corrupt))
        let result = try facecam("detect", "--detector", "yunet", "--model", corrupt, "Fixtures/images/astronaut.png")
        #expect(result.status == 64 && result.stdout.isEmpty)
        #expect(result.errorLines.count == 1 && result.errorLines[0].hasPrefix("facecam: ") && result.errorLines[0].contains(corrupt),
                "\(result.stderr)")
    }

    /// An installed binary (its media library in PREFIX/lib/facecam/media, which reads the PNG) finds the model in
    /// PREFIX/share/facecam from any working directory, and one with no model anywhere says where it looked.
    @Test func anInstalledBinaryFindsTheModelUnderItsPrefix() throws {
        let prefix = try temporaryDirectory("prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let manager = FileManager.default
        let bin = prefix.appendingPathComponent("bin"), share = prefix.appendingPathComponent("share/facecam")
        try manager.createDirectory(at: bin, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("facecam"), media = prefix.appendingPathComponent("lib/facecam/media")
        try manager.copyItem(at: facecamBinary, to: installed)
        try manager.createDirectory(at: media, withIntermediateDirectories: true)
        try manager.copyItem(
            at: facecamBinary.deletingLastPathComponent().appendingPathComponent("libFaceCamMedia.so"),
            to: media.appendingPathComponent("libFaceCamMedia.so"))
        let image = repository.appendingPathComponent("Fixtures/images/astronaut.png").path

        let without = try run(installed, ["detect", "--detector", "yunet", image])
        if !manager.fileExists(atPath: "/usr/local/share/facecam/face_detection_yunet_2022mar.onnx"),
           !manager.fileExists(atPath: "/usr/share/facecam/face_detection_yunet_2022mar.onnx") {
            #expect(without.status == 64)
            #expect(without.errorLines.count == 1)
            #expect(without.stderr.contains("YuNet model not found; tried \(bin.path)/facecam_FaceCam.resources/YuNet/"), "\(without.stderr)")
        }

        try manager.createDirectory(at: share, withIntermediateDirectories: true)
        try manager.copyItem(
            at: repository.appendingPathComponent("Sources/FaceCam/Resources/YuNet/face_detection_yunet_2022mar.onnx"),
            to: share.appendingPathComponent("face_detection_yunet_2022mar.onnx"))
        let with = try run(installed, ["detect", "--detector", "yunet", image])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(try with.records().first.map(boxes) == [[178, 58, 94, 117]])
    }

    @Test func liveRunsYuNetOnEveryFrameItKeepsUpWith() throws {
        let result = try facecam("live", "--source", "Fixtures/video/pan-zoom.avi", "--realtime", "--detector", "yunet")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result))
        #expect(counts.captured == 36 && counts.processed + counts.dropped == 36)
        let records = try result.records()
        #expect(records.count == counts.processed)
        // Each processed frame has FaceDetectorYN's faces for that frame of the file.
        let expected = Dictionary(uniqueKeysWithValues: try videoExpectations("video/pan-zoom.avi", detector: "yunet")
            .map { ($0.frame, $0.faces) })
        for record in records {
            let frame = record["sequence"] as! Int
            #expect(facesMatch(record, try #require(expected[frame])), "frame \(frame)")
        }
    }

    @Test func annotatedFramesShowTheLandmarksAsDots() throws {
        let directory = try temporaryDirectory("landmarks")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try facecam("detect", "--detector", "yunet", "--annotate", directory.path, "Fixtures/images/astronaut.png")
        #expect(result.status == 0)
        let record = try #require(try result.records().first)
        let face = try #require((record["faces"] as? [[String: Any]])?.first)
        let points = try #require(face["preview_landmarks"] as? [[Double]])
        // Read the annotated JPEG back with OpenCV (python3-opencv): each landmark's pixel is red.
        let script = """
            import cv2, json, sys
            image = cv2.imread(sys.argv[1])
            print(json.dumps([image[int(y), int(x)].tolist() for x, y in json.loads(sys.argv[2])]))
            """
        let pixels = try run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, directory.appendingPathComponent("astronaut.jpg").path,
             String(data: try JSONSerialization.data(withJSONObject: points), encoding: .utf8)!])
        let bgr = try #require(try JSONSerialization.jsonObject(with: Data(pixels.stdout.utf8)) as? [[Int]], "\(pixels.stderr)")
        #expect(bgr.count == 5)
        for pixel in bgr {
            #expect(pixel[2] > 200 && pixel[1] < 60 && pixel[0] < 60, "\(pixel) is not red")
        }
    }
}

/// A mosaic of 8 x 10 copies of one face (1040x1600): the large-face search once took the whole
/// group for one face and dropped the 80 faces inside it.
struct DenseGroupTests {
    static func mosaic() throws -> (directory: URL, path: String) {
        let directory = try temporaryDirectory("mosaic")
        let path = directory.appendingPathComponent("mosaic.png").path
        let script = "import cv2, numpy as np, sys; face = cv2.imread(sys.argv[1])[40:200, 160:290]; "
            + "cv2.imwrite(sys.argv[2], np.tile(face, (10, 8, 1)))"
        let made = try run(URL(fileURLWithPath: SharedDataTests.python), ["-c", script, fixture("images/astronaut.png"), path])
        try #require(made.status == 0, "\(made.stderr)")
        return (directory, path)
    }

    /// Every face is FaceDetectorYN's own, called directly, and there are 80 of them.
    @Test func everyFaceOfTheGroupIsKept() throws {
        let (directory, path) = try Self.mosaic()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try referenceYuNetFaces(path, scoreThreshold: 0.5)
        let result = try facecam("detect", "--detector", "yunet", "--score-threshold", "0.5", path)
        let record = try #require(try result.records().first)
        #expect(expected.count == 80)
        #expect(facesMatch(record, expected), "\((record["faces"] as! [Any]).count) faces against \(expected.count)")
    }

    /// redact masks all of them: OpenCV's YuNet finds none afterwards.
    @Test func redactHidesEveryFaceOfTheGroup() throws {
        let (directory, path) = try Self.mosaic()
        defer { try? FileManager.default.removeItem(at: directory) }
        let redacted = directory.appendingPathComponent("redacted.png").path
        let result = try facecam("redact", "--detector", "yunet", "--score-threshold", "0.5", "-o", redacted, path)
        #expect(result.status == 0, "\(result.stderr)")
        let check = try RedactionCheck.run(original: path, redacted: redacted)
        #expect(check.facesBefore == 80)
        #expect(check.facesAfter == 0)
    }
}
