import Foundation
import Testing

/// --pose, --quality, --crops and --overlay, run in this process, against OpenCV-Python (Tests/Reference/face_attributes.py).
struct FaceAttributeTests {
    static let reference = repository.appendingPathComponent("Tests/Reference/face_attributes.py").path

    /// Runs the reference script; its JSON answer, if any.
    static func reference(_ arguments: String...) throws -> (status: Int32, answer: [String: Any]?) {
        try reference(arguments)
    }

    static func reference(_ arguments: [String]) throws -> (status: Int32, answer: [String: Any]?) {
        let result = try run(URL(fileURLWithPath: SharedDataTests.python), [reference] + arguments)
        let answer = result.lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (result.status, answer)
    }

    /// The mean difference the reference measured; the test fails when it could not.
    static func meanDifference(_ arguments: String...) throws -> Double {
        let result = try run(URL(fileURLWithPath: SharedDataTests.python), [reference] + arguments)
        let answer = try #require(result.lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        return try #require(answer["mean_difference"] as? Double, "sizes differ: \(answer)")
    }

    static func landmarksJSON(_ face: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: face["landmarks"]!), as: UTF8.self)
    }

    /// InsightFace's alignment made by OpenCV-Python from the landmarks facecam reports: equal to facecam's
    /// lossless crop within 1 grey level on average (in practice a ten-thousandth), and to its JPEG within 3.
    @Test(arguments: [("png", 112, 1.0), ("jpg", 112, 3.0), ("png", 160, 1.0)])
    func alignedCropsEqualOpenCVsAlignment(format: String, size: Int, tolerance: Double) throws {
        let directory = try temporaryDirectory("aligned")
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = fixture("images/two-faces.jpg")
        let result = try inProcess(
            "detect", "--crops", directory.path, "--crop-style", "aligned", "--crop-size", String(size), "--crop-format", format, image)
        #expect(result.status == 0, "\(result.ending)")
        let faces = try #require(try result.records().first?["faces"] as? [[String: Any]])
        try #require(faces.count == 2)
        for (index, face) in faces.enumerated() {
            let crop = directory.appendingPathComponent("two-faces-face\(index).\(format)").path
            let difference = try Self.meanDifference("aligned-crop", image, String(size), try Self.landmarksJSON(face), crop)
            #expect(difference <= tolerance, "face \(index): \(difference) grey levels from OpenCV's")
        }
    }

    /// A box crop without margin is the box's pixels, exactly; with the default margin of a quarter
    /// it is the box widened by a quarter of its size on each side, clipped to the image.
    @Test func boxCropsAreTheBoxPixels() throws {
        let directory = try temporaryDirectory("box")
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = fixture("images/astronaut.png")
        let exact = try inProcess("detect", "--crops", directory.appendingPathComponent("exact").path, "--crop-margin", "0", "--crop-format", "png", image)
        let widened = try inProcess("detect", "--crops", directory.appendingPathComponent("wide").path, "--crop-format", "png", image)
        #expect(exact.status == 0 && widened.status == 0, "\(exact.ending) \(widened.ending)")
        let box = try #require(try exact.records().first?["faces"] as? [[String: Any]]).first!["box"] as! [Int]
        let (x, y, w, h) = (box[0], box[1], box[2], box[3])
        let difference = try Self.meanDifference(
            "box-crop", image, String(x), String(y), String(w), String(h), directory.appendingPathComponent("exact/astronaut-face0.png").path)
        #expect(difference == 0)
        // Hand-computed: a quarter of the width and height on each side, rounded, within 512x512.
        let (dx, dy) = (Double(w) / 4, Double(h) / 4)
        let x0 = max(0, Int((Double(x) - dx).rounded())), y0 = max(0, Int((Double(y) - dy).rounded()))
        let x1 = min(512, Int((Double(x + w) + dx).rounded())), y1 = min(512, Int((Double(y + h) + dy).rounded()))
        let wide = try Self.meanDifference(
            "box-crop", image, String(x0), String(y0), String(x1 - x0), String(y1 - y0), directory.appendingPathComponent("wide/astronaut-face0.png").path)
        #expect(wide == 0)
    }

    /// In a video, each face's crop is named after its frame and track id.
    @Test func videoCropsAreNamedByFrameAndTrack() throws {
        let directory = try temporaryDirectory("video-crops")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try inProcess("video", "--crops", directory.path, "Fixtures/video/leave-enter.avi")
        #expect(result.status == 0, "\(result.ending)")
        let expected = try result.records().filter { $0["faces"] != nil }.flatMap { record in
            (record["faces"] as! [[String: Any]]).map { String(format: "leave-enter-%06d-id%d.jpg", record["frame"] as! Int, $0["id"] as! Int) }
        }
        #expect(!expected.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == expected.sorted())
    }

    /// Turned clockwise by known angles (-40 to 40 degrees), each fixture face's roll grows by the
    /// angle: within 2 degrees on average and 4 at most (docs/reference/faces.md).
    @Test(arguments: ["images/astronaut.png", "images/grace_hopper.jpg"])
    func rollFollowsAPictureTurnedByKnownAngles(image: String) throws {
        let directory = try temporaryDirectory("roll")
        defer { try? FileManager.default.removeItem(at: directory) }
        let angles = [-40.0, -30.0, -10.0, 20.0, 40.0]
        var paths = [fixture(image)]
        for angle in angles {
            let turned = directory.appendingPathComponent("turned\(angle).png").path
            try #require(try Self.reference("turn", fixture(image), String(angle), turned).status == 0)
            paths.append(turned)
        }
        let result = try inProcess(["detect", "--pose"] + paths)
        #expect(result.status == 0, "\(result.ending)")
        let rolls = try result.records().map { record in
            let faces = try #require(record["faces"] as? [[String: Any]])
            try #require(faces.count == 1, "\(record)")
            return try #require((faces[0]["pose"] as? [String: Any])?["roll"] as? Double)
        }
        try #require(rolls.count == angles.count + 1)
        let errors = zip(rolls.dropFirst(), angles).map { abs($0 - rolls[0] - $1) }
        #expect(errors.reduce(0, +) / Double(errors.count) <= 2 && errors.max()! <= 4, "rolls \(rolls) for \(angles): errors \(errors)")
    }

    /// One portrait stored in each of the 8 EXIF orientations and turned upright (--orientation K):
    /// its pose is the upright picture's whatever the storage, mirrored ones included (within 4
    /// degrees of the first: the copies are JPEG-encoded apart), and so is its aligned crop (within
    /// 15 grey levels; a crop fitted to a mirrored buffer would differ by about 120).
    @Test func poseAndAlignedCropsDoNotDependOnHowAPictureIsStored() throws {
        let directory = try temporaryDirectory("stored")
        defer { try? FileManager.default.removeItem(at: directory) }
        var poses: [[Double]] = []
        for k in 1...8 {
            let crops = directory.appendingPathComponent("\(k)").path
            let result = try inProcess(
                "detect", "--pose", "--orientation", String(k), "--crops", crops, "--crop-style", "aligned", "--crop-format", "png",
                fixture("orientations/portrait-\(k).jpg"))
            #expect(result.status == 0, "\(result.ending)")
            let face = try #require((try result.records().first?["faces"] as? [[String: Any]])?.first)
            let pose = try #require(face["pose"] as? [String: Any])
            poses.append(["roll", "yaw", "pitch"].map { (pose[$0] as! NSNumber).doubleValue })
            if k > 1 {
                let difference = try Self.meanDifference(
                    "difference", directory.appendingPathComponent("1/portrait-1-face0.png").path, crops + "/portrait-\(k)-face0.png")
                #expect(difference <= 15, "orientation \(k): the aligned crop differs by \(difference) grey levels")
            }
        }
        for (k, pose) in poses.enumerated() {
            #expect(zip(pose, poses[0]).allSatisfy { abs($0 - $1) <= 4 }, "orientation \(k + 1): \(pose) against \(poses[0])")
        }
    }

    /// The preview's pose, hand-computed from the upright picture's: a mirror negates roll and yaw;
    /// a preview stretched by --gravity resize to half the height (a tilted eye line flattens) turns
    /// roll to atan(tan(roll) / 2).
    @Test func previewPoseFollowsMirrorAndStretch() throws {
        for (options, expected) in [
            (["--mirror"], { (p: [Double]) in [-p[0], -p[1], p[2]] }),
            (["--preview", "512x256", "--gravity", "resize"], { (p: [Double]) in [atan(tan(p[0] * .pi / 180) / 2) * 180 / .pi, p[1], p[2]] }),
        ] as [([String], ([Double]) -> [Double])] {
            let result = try inProcess(["detect", "--pose"] + options + [fixture("images/astronaut.png")])
            #expect(result.status == 0, "\(result.ending)")
            let face = try #require((try result.records().first?["faces"] as? [[String: Any]])?.first)
            let angles = { (key: String) throws -> [Double] in
                let pose = try #require(face[key] as? [String: Any])
                return ["roll", "yaw", "pitch"].map { (pose[$0] as? Double) ?? Double(pose[$0] as! Int) }
            }
            let buffer = try angles("pose"), preview = try angles("preview_pose")
            for (got, want) in zip(preview, expected(buffer)) {
                #expect(abs(got - want) <= 0.011, "\(options): preview \(preview), buffer \(buffer)")
            }
        }
    }

    /// A blurred copy and a smaller copy of a face (OpenCV's GaussianBlur, resize) score a lower quality.
    @Test(arguments: [["blur", "2"], ["blur", "1"], ["shrink", "0.5"]])
    func degradedCopiesScoreLowerQuality(degradation: [String]) throws {
        let directory = try temporaryDirectory("quality")
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = fixture("images/grace_hopper.jpg")
        let copy = directory.appendingPathComponent("copy.png").path
        try #require(try run(URL(fileURLWithPath: SharedDataTests.python), [Self.reference] + [degradation[0], original, degradation[1], copy]).status == 0)
        let result = try inProcess("detect", "--quality", original, copy)
        #expect(result.status == 0, "\(result.ending)")
        let qualities = try result.records().map { record in
            try #require((record["faces"] as? [[String: Any]])?.first?["quality"] as? Double, "\(record)")
        }
        try #require(qualities.count == 2)
        #expect(qualities[1] < qualities[0], "\(degradation): \(qualities[1]) against the original's \(qualities[0])")
    }

    /// In the shared head-pose clip, the frame MediaPipe's face mesh reads as turned by 51 degrees (2)
    /// scores a lower quality than the one it reads as frontal (9), and facecam's yaw says which way.
    static let headPoseClip = repository.deletingLastPathComponent().appendingPathComponent("shared/data/video/head-pose-face-detection-female.gif").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: FaceAttributeTests.headPoseClip), "../shared/data/video is absent"))
    func aTurnedFaceScoresLowerQuality() throws {
        let clip = Self.headPoseClip
        let result = try inProcess("video", "--quality", clip)
        #expect(result.status == 0, "\(result.ending)")
        let faces = try Dictionary(uniqueKeysWithValues: result.records().map { record in
            (record["frame"] as! Int, try #require((record["faces"] as? [[String: Any]])?.first, "\(record)"))
        }.filter { [2, 9].contains($0.0) })
        let turned = try #require(faces[2]), frontal = try #require(faces[9])
        #expect((turned["quality"] as! Double) < (frontal["quality"] as! Double), "\(turned) against \(frontal)")
        #expect(((turned["pose"] as! [String: Any])["yaw"] as! Double) < -30, "\(turned)")
    }

    /// A clip of one face blurred in every frame but one: the track's best shot is that frame's,
    /// saved once, with its record.
    @Test(arguments: [2, 7])
    func theBestShotIsTheSharpFrame(sharp: Int) throws {
        let directory = try temporaryDirectory("best-shot")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("clip.avi").path
        let made = try Self.reference("blurred-clip", fixture("images/grace_hopper.jpg"), "10", String(sharp), clip)
        try #require(made.status == 0)
        let crops = directory.appendingPathComponent("crops").path
        let result = try inProcess("video", "--crops", crops, "--best-shot", clip)
        #expect(result.status == 0, "\(result.ending)")
        let shots = try result.records().filter { $0["event"] as? String == "best_shot" }
        try #require(shots.count == 1, "\(shots)")
        #expect(shots[0]["frame"] as? Int == sharp && shots[0]["id"] as? Int == 1)
        let file = String(format: "clip-%06d-id1.jpg", sharp)
        #expect(shots[0]["file"] as? String == crops + "/" + file)
        #expect(try FileManager.default.contentsOfDirectory(atPath: crops) == [file])
    }

    /// The sunglasses of Fixtures/overlay sit where the landmarks say: each eye is under a dark
    /// lens (20 grey levels at alpha 235), and the nose tip, where the picture is transparent, keeps
    /// the preview's own pixel, as a wholly transparent overlay leaves it (read by OpenCV-Python; within JPEG's error).
    @Test(arguments: [[], ["--mirror"], ["--orientation", "3"]])
    func overlaysSitWhereTheLandmarksSay(geometry: [String]) throws {
        let (bare, covered) = try Self.overlaid("overlay/sunglasses.png", options: geometry) { p in [p[0], p[1], p[2]] }
        for eye in 0..<2 {
            let expected = bare[eye].map { (20 * 235 + $0 * 20) / 255 }
            #expect(zip(covered[eye], expected).allSatisfy { abs($0 - $1) <= 25 }, "eye \(eye): \(covered[eye]), expected \(expected)")
        }
        #expect(zip(covered[2], bare[2]).allSatisfy { abs($0 - $1) <= 25 }, "nose: \(covered[2]) against \(bare[2])")
    }

    /// grace_hopper.jpg annotated with the fixture picture `overlay` and with a wholly transparent one
    /// (the preview's own pixels: an overlay replaces the outlines), `options` added to both; the pixels
    /// of each at the points `at` picks from the face's preview landmarks, read by OpenCV-Python.
    static func overlaid(_ overlay: String, options: [String], at: ([[Double]]) -> [[Double]]) throws -> (bare: [[Int]], covered: [[Int]]) {
        let directory = try temporaryDirectory("overlay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let transparent = directory.appendingPathComponent("transparent.png").path
        try #require(try reference("transparent", transparent).status == 0)
        let annotate = { (name: String, picture: String) throws -> InProcessRun in
            try inProcess(["detect", "--annotate", directory.appendingPathComponent(name).path, "--overlay", picture]
                + options + [fixture("images/grace_hopper.jpg")])
        }
        let plain = try annotate("plain", transparent), placed = try annotate("placed", fixture(overlay))
        #expect(plain.status == 0 && placed.status == 0, "\(plain.ending) \(placed.ending)")
        let face = try #require((try placed.records().first?["faces"] as? [[String: Any]])?.first)
        let coordinates = at(try #require(face["preview_landmarks"] as? [[Double]])).flatMap { $0.map { String($0) } }
        let pixels = { (name: String) throws -> [[Int]] in
            let answer = try reference(["pixels", directory.appendingPathComponent("\(name)/grace_hopper.jpg").path] + coordinates)
            return try #require(answer.answer?["pixels"] as? [[Int]])
        }
        return (try pixels("plain"), try pixels("placed"))
    }

    /// The README's overlay picture is what facecam makes of two-faces.jpg today (make demo copies it there).
    @Test func readmeOverlayExampleIsCurrent() throws {
        let directory = try temporaryDirectory("overlay-readme")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try inProcess("detect", "--annotate", directory.path, "--overlay", "Fixtures/overlay/sunglasses.png", "Fixtures/images/two-faces.jpg")
        #expect(result.status == 0, "\(result.ending)")
        let committed = FileManager.default.contents(atPath: fixture("readme/two-faces-sunglasses.jpg"))
        let made = FileManager.default.contents(atPath: directory.appendingPathComponent("two-faces.jpg").path)
        #expect(committed != nil && made == committed, "run make demo and commit the image")
    }

    /// The mustache of Fixtures/overlay, anchored on the mouth's corners, covers the lip above the
    /// mouth and not the chin below it, whichever way the preview turns or mirrors the face.
    @Test(arguments: [[], ["--mirror"], ["--orientation", "3"], ["--orientation", "4"]])
    func aMustacheSitsAboveTheMouth(geometry: [String]) throws {
        let (bare, covered) = try Self.overlaid("overlay/mustache.png", options: ["--overlay-anchor", "mouth"] + geometry) { p in
            let mouth = [(p[3][0] + p[4][0]) / 2, (p[3][1] + p[4][1]) / 2]
            // A third of the way from the mouth to the nose (the lip), and as far the other way (the chin).
            return [[mouth[0] + 0.3 * (p[2][0] - mouth[0]), mouth[1] + 0.3 * (p[2][1] - mouth[1])],
                    [mouth[0] - 0.3 * (p[2][0] - mouth[0]), mouth[1] - 0.3 * (p[2][1] - mouth[1])]]
        }
        #expect(zip(covered[0], [20, 40, 70]).allSatisfy { abs($0 - $1) <= 25 }, "lip: \(covered[0])")
        #expect(zip(covered[1], bare[1]).allSatisfy { abs($0 - $1) <= 25 }, "chin: \(covered[1]) against \(bare[1])")
    }


    /// live --best-shot: a clip played as a camera; its track's one best shot is the sharp frame's
    /// whenever that frame was processed (live may drop late frames), named by the frame counter.
    @Test func liveBestShotIsTheSharpFrame() throws {
        let directory = try temporaryDirectory("live-best-shot")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("clip.avi").path
        try #require(try Self.reference("blurred-clip", fixture("images/grace_hopper.jpg"), "10", "6", clip).status == 0)
        let crops = directory.appendingPathComponent("crops").path
        let result = try inProcess("live", "--source", clip, "--crops", crops, "--best-shot")
        #expect(result.status == 0, "\(result.ending)")
        let records = try result.records()
        let shots = records.filter { $0["event"] as? String == "best_shot" }
        try #require(shots.count == 1, "\(shots)")
        let frame = try #require(shots[0]["frame"] as? Int)
        if records.contains(where: { $0["frame"] as? Int == 6 && $0["faces"] != nil }) { #expect(frame == 6) }
        let file = String(format: "frame-%08d-id1.jpg", frame)
        #expect(shots[0]["file"] as? String == crops + "/" + file)
        #expect(try FileManager.default.contentsOfDirectory(atPath: crops) == [file])
    }


    @Test(arguments: [
        (["detect", "--crops", "/tmp/facecam-never-written", "--annotate", "/tmp/facecam-never-written/"],
         "--crops and --annotate name one directory"),
        (["detect", "--pose", "--format", "yolo", "--output-dir", "/tmp/facecam-never-written"], "--format yolo has no place for what --pose reports"),
        (["video", "--quality", "--format", "labelstudio"], "--format labelstudio has no place for what --quality reports"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("overlay/sunglasses.png"), "--overlay-points=-1e9,5,0,5"],
         "--overlay-points takes four numbers from -100000 to 100000"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("overlay/sunglasses.png"), "--overlay-points", "5,5,5.5,5"],
         "--overlay-points gives two points less than a pixel apart"),
        (["redact", "--mode", "image", "-o", "/tmp/facecam-never-written.png"], "--mode image lays a picture over faces: give it with --image FILE"),
        (["redact", "--image", fixture("overlay/mustache.png"), "-o", "/tmp/facecam-never-written.png"], "--image is the picture of --mode image"),
        (["video", "--annotate", "/tmp/facecam-never-written", "--redact", "image"], "--redact image lays a picture over faces"),
        (["redact", "--mode", "image", "--image", "/nonexistent/picture.png", "-o", "/tmp/facecam-never-written.png"],
         "--image /nonexistent/picture.png: cannot read"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("images/grace_hopper.jpg")],
         "--overlay \(fixture("images/grace_hopper.jpg")): the overlay has no alpha channel"),
        (["detect", "--overlay", fixture("overlay/sunglasses.png")], "--overlay goes on the frames --annotate writes or shows"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("overlay/sunglasses.png"), "--detector", "haar"],
         "--overlay is placed on the landmarks the haar detector does not give"),
        (["video", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("overlay/sunglasses.png"), "--redact", "blur"],
         "--overlay and --redact both say what covers the faces"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", fixture("overlay/sunglasses.png"), "--overlay-points", "1,2,3"],
         "--overlay-points takes four numbers"),
        (["detect", "--overlay-anchor", "mouth"], "--overlay-anchor says where --overlay goes"),
        (["detect", "--annotate", "/tmp/facecam-never-written", "--overlay", "/nonexistent/overlay.png"], "--overlay /nonexistent/overlay.png: cannot read"),
        (["detect", "--crops", "/tmp/facecam-never-written", "--best-shot"], "Unknown option '--best-shot': it is an option of video and live"),
        (["video", "--crops", "/tmp/facecam-never-written", "--best-shot", "--format", "csv"], "--best-shot writes a record per track"),
        (["video", "--crops", "/tmp/facecam-never-written", "--best-shot", "--detector", "haar"], "--best-shot ranks faces by a quality"),
        (["video", "--best-shot"], "--best-shot says how --crops cuts faces out"),
        (["detect", "--detector", "haar", "--pose"], "--pose reads the landmarks the haar detector does not give"),
        (["detect", "--detector", "haar", "--quality"], "--quality reads the landmarks the haar detector does not give"),
        (["redact", "--quality", "-o", "/tmp/facecam-never-written.png"], "Unknown option '--quality'"),
        (["detect", "--detector", "haar", "--crops", "/tmp/facecam-never-written", "--crop-style", "aligned"],
         "--crop-style aligned places the landmarks the haar detector does not give"),
        (["detect", "--crop-size", "100"], "--crop-size says how --crops cuts faces out"),
        (["detect", "--crops", "/tmp/facecam-never-written", "--crop-size", "100"], "--crop-size sizes aligned crops"),
        (["detect", "--crops", "/tmp/facecam-never-written", "--crop-style", "aligned", "--crop-margin", "0.1"], "--crop-margin widens box crops"),
        (["detect", "--crops", "/tmp/facecam-never-written", "--crop-margin", "3"], "--crop-margin must be from 0 to 2"),
        (["redact", "--pose", "-o", "/tmp/facecam-never-written.png"], "Unknown option '--pose'"),
        (["eval", "--ground-truth", fixture("evaluation/truth.json"), "--pose"], "Unknown option '--pose'"),
    ])
    func optionsThatCannotApplyAreUsageErrors(arguments: [String], message: String) throws {
        let line = try reportedUsageError(arguments + (arguments[0] == "live" ? [] : [fixture("images/astronaut.png")]))
        #expect(line?.hasPrefix("facecam: \(message)") == true, "\(line ?? "none")")
    }
}

/// What the binary says and writes for --image and --overlay pictures.
struct FaceAttributeCommandTests {
    /// A picture 32,767 pixels or more on a side (40000x2 is under the 16 megapixels) is refused with
    /// 64 and one line before any work: OpenCV's resize takes no such side, and every face would fail.
    @Test func aPictureTooLongForOpenCVIsRefusedFirst() throws {
        let directory = try temporaryDirectory("long-picture")
        defer { try? FileManager.default.removeItem(at: directory) }
        let picture = directory.appendingPathComponent("long.png").path
        let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), [
            "-c", "import cv2, numpy as np, sys; cv2.imwrite(sys.argv[1], np.full((2, 40000, 4), 255, np.uint8))", picture,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        let output = directory.appendingPathComponent("out.png").path
        for (arguments, option) in [
            (["redact", "--mode", "image", "--image", picture, "-o", output], "--image"),
            (["detect", "--annotate", directory.path + "/annotated", "--overlay", picture], "--overlay"),
        ] {
            let result = try run(facecamBinary, arguments + [fixture("images/two-faces.jpg")])
            #expect(result.status == 64)
            #expect(result.errorLines == ["facecam: \(option) \(picture): 40000x2 is more than the 32766 pixels a side an overlay may have; shrink it"],
                    "\(result.stderr)")
            #expect(result.stdout.isEmpty && !FileManager.default.fileExists(atPath: output))
        }
    }
    /// redact --mode image stretches the picture over each face's enlarged box (--shape box), opaque:
    /// the mustache's point (120, 30) of 200x60, inside it, is (20, 40, 70) in the image, and its
    /// transparent corner hides the face as black rather than showing it.
    @Test func imageModeCoversFacesWithThePictureOpaque() throws {
        let directory = try temporaryDirectory("redact-image")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("redacted.png").path
        let redacted = try facecam(
            "redact", "--mode", "image", "--image", fixture("overlay/mustache.png"), "--shape", "box", "-o", output,
            fixture("images/grace_hopper.jpg"))
        #expect(redacted.status == 0, "\(redacted.stderr)")
        // redact's own detector (CenterFace over three scales, focused, plus YuNet) found the face: its box, read back from detect
        // with the same settings.
        let detected = try facecam(
            "detect", "--detector", "centerface", "--scales", "1,2,3", "--score-threshold", "0.1", "--focus", "--plus-yunet",
            fixture("images/grace_hopper.jpg"))
        let box = try #require((try detected.records().first?["faces"] as? [[String: Any]])?.first?["box"] as? [Int]).map(Double.init)
        let (w, h) = (box[2] * 1.3, box[3] * 1.3)
        let (x, y) = (box[0] + box[2] / 2 - w / 2, box[1] + box[3] / 2 - h / 2)
        let points = [x + 120.0 / 200 * w, y + 30.0 / 60 * h, x + 0.05 * w, y + 0.05 * h]
        let pixels = try #require(try FaceAttributeTests.reference(["pixels", output] + points.map { String($0) }).answer?["pixels"] as? [[Int]])
        #expect(pixels == [[20, 40, 70], [0, 0, 0]], "\(pixels)")
    }
}
