import Foundation
import Testing

/// One line of Fixtures/expectations.jsonl: what OpenCV, called directly by
/// Tests/Reference/opencv_faces.py, finds in a fixture with some options.
struct Expectation: CustomStringConvertible, Sendable {
    var file: String
    var arguments: [String]
    var boxes: [[Int]]
    /// YuNet's faces (YuNet cases only).
    var faces: [ReferenceFace]?

    static func all() throws -> [Expectation] {
        let text = try String(contentsOf: repository.appendingPathComponent("Fixtures/expectations.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            // Still-image cases have options; video frames (see VideoCommandTests) do not.
            guard let options = object["options"] as? [String: Any] else { return nil }
            // The reference's option names are facecam's, with _ for -; lists are joined as facecam writes them.
            let arguments = options.keys.sorted().flatMap { key -> [String] in
                let value = options[key]!
                let text: String
                switch (key, value) {
                case ("min_size", let size as [Int]), ("max_size", let size as [Int]): text = "\(size[0])x\(size[1])"
                case (_, let list as [Int]): text = list.map(String.init).joined(separator: ",")
                default: text = "\(value)"
                }
                return ["--" + key.replacingOccurrences(of: "_", with: "-"), text]
            }
            return Expectation(
                file: object["file"] as! String, arguments: arguments, boxes: object["boxes"] as! [[Int]],
                faces: (object["faces"] as? [[String: Any]])?.map(ReferenceFace.init))
        }
    }

    var description: String { "\(file) \(arguments.joined(separator: " "))" }
}

func boxes(_ record: [String: Any]) -> [[Int]] {
    (record["faces"] as! [[String: Any]]).map { $0["box"] as! [Int] }
}

/// A YuNet face as the reference reports it, or as facecam's JSON does.
struct ReferenceFace: Sendable, CustomStringConvertible {
    var box: [Int]
    var score: Double
    var landmarks: [[Double]]

    init(_ object: [String: Any]) {
        box = object["box"] as! [Int]
        score = (object["score"] as? NSNumber)?.doubleValue ?? -1
        landmarks = (object["landmarks"] as? [[NSNumber]])?.map { $0.map(\.doubleValue) } ?? []
    }

    /// Boxes and landmarks within a pixel, scores within 0.01.
    func matches(_ other: ReferenceFace) -> Bool {
        box.count == 4 && other.box.count == 4 && zip(box, other.box).allSatisfy { abs($0 - $1) <= 1 }
            && abs(score - other.score) <= 0.01 && landmarks.count == 5 && other.landmarks.count == 5
            && zip(landmarks, other.landmarks).allSatisfy { abs($0[0] - $1[0]) <= 1 && abs($0[1] - $1[1]) <= 1 }
    }

    var description: String { "\(box) \(score) \(landmarks)" }
}

/// Every face of `record` matches the reference's face in the same place.
/// OpenCV's own FaceDetectorYN's faces in the image at `path` (Tests/Reference/opencv_faces.py), in facecam's order.
func referenceYuNetFaces(_ path: String, scoreThreshold: Double) throws -> [ReferenceFace] {
    let reference = try run(
        URL(fileURLWithPath: SharedDataTests.python),
        [repository.appendingPathComponent("Tests/Reference/opencv_faces.py").path, "yunet", "--score-threshold", String(scoreThreshold), path])
    try #require(reference.status == 0, "\(reference.stderr)")
    return (try #require(try reference.records().first)["faces"] as! [[String: Any]]).map(ReferenceFace.init)
}

func facesMatch(_ record: [String: Any], _ reference: [ReferenceFace]) -> Bool {
    let faces = (record["faces"] as! [[String: Any]]).map(ReferenceFace.init)
    return faces.count == reference.count && zip(faces, reference).allSatisfy { $0.matches($1) }
}

struct DetectCommandTests {
    @Test(arguments: try Expectation.all())
    func boxesEqualOpenCVsOwn(_ expectation: Expectation) throws {
        let result = try inProcess(["detect"] + expectation.arguments + [fixture(expectation.file)])
        #expect(result.status == 0, "\(result.ending)")
        let records = try result.records()
        try #require(records.count == 1)
        if let faces = expectation.faces {
            #expect(facesMatch(records[0], faces), "\(records[0]) against \(faces)")
        } else {
            #expect(boxes(records[0]) == expectation.boxes)
        }
    }

    @Test func jsonRecordsCarryTheDocumentedFields() throws {
        let result = try inProcess("detect", "--detector", "haar", "--preview", "200x100", "--gravity", "fill", "Fixtures/images/astronaut.png")
        let record = try #require(try result.records().first)
        #expect(record["source"] as? String == "Fixtures/images/astronaut.png")
        #expect(record["frame"] as? Int == 0)
        #expect(record["time"] as? Int == 0)
        #expect(record["size"] as? [Int] == [512, 512])
        #expect(record["preview_size"] as? [Int] == [200, 100])
        // fill: 512x512 into 200x100 scales by 200/512 and centres: y offset (100 - 200) / 2.
        let face = try #require((record["faces"] as? [[String: Any]])?.first)
        #expect(face["box"] as? [Int] == [178, 69, 92, 92])
        let s = 200.0 / 512
        let preview = try #require(face["preview"] as? [Double])
        let expected = [178 * s, 69 * s - 50, 92 * s, 92 * s]
        #expect(zip(preview, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(preview)")
    }

    @Test func directoriesAreReadInNameOrder() throws {
        let result = try inProcess("detect", "Fixtures/images")
        #expect(result.status == 0)
        #expect(try result.records().map { $0["source"] as! String } == [
            "Fixtures/images/astronaut.png", "Fixtures/images/camera.png", "Fixtures/images/chelsea.png",
            "Fixtures/images/coffee.png", "Fixtures/images/grace_hopper.jpg", "Fixtures/images/two-faces.jpg",
        ])
        let recursive = try inProcess("detect", "--recursive", "Fixtures")
        // exif/ (10), images/ (6), orientations/ (8), large-faces/ (2), readme/ (4), overlay/ (2).
        #expect(recursive.lines.count == 32)
    }

    @Test func csvHasOneRowPerFaceAndTextIsReadable() throws {
        let csv = try inProcess(["detect", "--detector", "haar", "--format", "csv", "Fixtures/images/two-faces.jpg", "Fixtures/images/coffee.png"], extension: "csv")
        #expect(csv.lines == [
            "source,frame,time,face,box_x,box_y,box_width,box_height,preview_x,preview_y,preview_width,preview_height,id,"
                + "score,right_eye_x,right_eye_y,left_eye_x,left_eye_y,nose_x,nose_y,mouth_right_x,mouth_right_y,mouth_left_x,mouth_left_y,"
                + "roll,yaw,pitch,preview_roll,preview_yaw,preview_pitch,quality,identity,distance",
            "Fixtures/images/two-faces.jpg,0,0,0,176,66,96,96,176,66,96,96,,,,,,,,,,,,,,,,,,,,,",
            "Fixtures/images/two-faces.jpg,0,0,1,673,90,215,215,673,90,215,215,,,,,,,,,,,,,,,,,,,,,",
        ])
        let text = try inProcess(["detect", "--detector", "haar", "--format", "text", "Fixtures/images/grace_hopper.jpg"], extension: "txt")
        #expect(text.lines == [
            "Fixtures/images/grace_hopper.jpg: 512x512, 1 face",
            "  face 1: box 228x228 at 150,85; preview 228x228 at 150,85",
        ])
    }






    @Test func annotateWritesOneJPEGPerFrame() throws {
        let directory = try temporaryDirectory("annotate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("nested/out").path
        let result = try inProcess(
            "detect", "--orientation", "6", "--preview", "320x240", "--annotate", output,
            "Fixtures/orientations/portrait-6.jpg", "Fixtures/orientations/portrait-6.jpg")
        #expect(result.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
        #expect(names == ["portrait-6-2.jpg", "portrait-6.jpg"])
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output + "/" + name)))
            #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]) && bytes.suffix(2) == [0xFF, 0xD9])
            // Read back by facecam itself, the annotated frame has the preview's size.
            let size = try inProcess("detect", output + "/" + name).records().first?["size"] as? [Int]
            #expect(size == [320, 240])
        }
    }
}

/// facecam against OpenCV called directly, on the photographs in ../shared/data
/// (read in place, never copied); skipped where that folder or python3-opencv is absent.
struct SharedDataTests {
    static let images = repository.deletingLastPathComponent().appendingPathComponent("shared/data/images")
    static let python = "/usr/bin/python3"
    static var available: Bool {
        FileManager.default.fileExists(atPath: images.path) && FileManager.default.isExecutableFile(atPath: python)
    }

    /// The shared photographs, then the reference's records and facecam's for them, one each.
    static func runBoth(reference mode: String, facecam arguments: [String]) throws -> [(ours: [String: Any], reference: [String: Any])] {
        let files = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { $0.hasSuffix(".jpg") }.sorted()
            .map { images.appendingPathComponent($0).path }
        try #require(!files.isEmpty)
        let reference = try run(
            URL(fileURLWithPath: python), [repository.appendingPathComponent("Tests/Reference/opencv_faces.py").path, mode] + files)
        try #require(reference.status == 0, "\(reference.stderr)")
        let ours = try inProcess(["detect"] + arguments + files)
        #expect(ours.status == 0)
        let (found, expected) = (try ours.records(), try reference.records())
        try #require(found.count == expected.count)
        return Array(zip(found, expected))
    }

    @Test(.enabled(if: SharedDataTests.available, "../shared/data/images or /usr/bin/python3 is absent"))
    func boxesEqualOpenCVsOwnOnSharedPhotographs() throws {
        var faces = 0
        for (record, reference) in try Self.runBoth(reference: "detect", facecam: ["--detector", "haar"]) {
            #expect(record["source"] as? String == reference["source"] as? String)
            #expect(boxes(record) == reference["boxes"] as! [[Int]], "\(record["source"]!)")
            faces += boxes(record).count
        }
        #expect(faces >= 9)
    }

    /// YuNet: every face within a pixel and 0.01 of FaceDetectorYN called directly.
    @Test(.enabled(if: SharedDataTests.available, "../shared/data/images or /usr/bin/python3 is absent"))
    func yunetFacesEqualOpenCVsOwnOnSharedPhotographs() throws {
        var faces = 0
        for (record, reference) in try Self.runBoth(reference: "yunet", facecam: ["--detector", "yunet"]) {
            let referenceFaces = (reference["faces"] as! [[String: Any]]).map(ReferenceFace.init)
            #expect(facesMatch(record, referenceFaces), "\(record["source"]!): \(record) against \(referenceFaces)")
            faces += referenceFaces.count
        }
        #expect(faces >= 9)
    }
}

/// EXIF orientation, checked against cv2.imread, which applies it (Fixtures/exif/expectations.jsonl).
@Suite struct ExifOrientationTests {
    struct Case: Decodable {
        var file: String
        var detector: String
        var size: [Int]
        var boxes: [[Int]]
    }

    static let cases: [Case] = {
        let text = try! String(contentsOf: repository.appendingPathComponent("Fixtures/exif/expectations.jsonl"), encoding: .utf8)
        return text.split(separator: "\n").map { try! JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }()

    /// The orientation each fixture is tagged with: the digit in its name.
    func tagged(_ file: String) -> Int { Int(String(file.first { $0.isNumber }!))! }

    @Test(arguments: ["haar", "yunet"])
    func autoTurnsEveryPhotographUprightAsImreadDoes(detector: String) throws {
        let result = try inProcess("detect", "--detector", detector, "Fixtures/exif")
        #expect(result.status == 0, "\(result.ending)")
        let records = try result.records()
        let cases = Self.cases.filter { $0.detector == detector }
        #expect(records.count == cases.count)
        for expected in cases {
            let record = try #require(records.first { $0["source"] as? String == "Fixtures/" + expected.file })
            #expect(record["orientation"] as? Int == tagged(expected.file), "\(expected.file)")
            #expect(record["preview_size"] as? [Int] == expected.size, "\(expected.file)")
            let previews = (record["faces"] as! [[String: Any]]).map { ($0["preview"] as! [Double]).map { Int($0.rounded()) } }
            // Haar's boxes are OpenCV's exactly; YuNet's within a pixel, as everywhere.
            let tolerance = detector == "haar" ? 0 : 1
            #expect(previews.count == expected.boxes.count, "\(expected.file): \(previews) against \(expected.boxes)")
            for (found, box) in zip(previews, expected.boxes) {
                #expect(zip(found, box).allSatisfy { abs($0 - $1) <= tolerance }, "\(expected.file): \(found) against \(box)")
            }
        }
    }

    /// An explicit orientation replaces the file's: `up` is the image as stored (TIFF excepted:
    /// OpenCV's decoder turns it upright whatever it is asked).
    @Test func anExplicitOrientationReplacesTheFiles() throws {
        let result = try inProcess("detect", "--orientation", "up", "Fixtures/exif/portrait-6.jpg", "Fixtures/exif/portrait-6.png")
        #expect(result.status == 0)
        for record in try result.records() {
            #expect(record["orientation"] as? Int == 1)
            #expect(record["size"] as? [Int] == [512, 400] && record["preview_size"] as? [Int] == [512, 400])
        }
        let given = try inProcess("detect", "--orientation", "3", "Fixtures/exif/portrait-6.jpg")
        #expect(try given.records().first?["orientation"] as? Int == 3)
    }

    @Test func anImageWithoutMetadataIsUpAndSaysSo() throws {
        let result = try inProcess("detect", "Fixtures/images/astronaut.png")
        #expect(try result.records().first?["orientation"] as? Int == 1)
    }
}

/// What detect says and how it ends, as the binary shows it: standard output against -o, inputs that cannot be read, folders that give nothing, --min-faces's status, an aperture that does not fit.
struct DetectReportCommandTests {
    @Test func outputFileHoldsWhatStandardOutputWould() throws {
        let directory = try temporaryDirectory("output")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("faces.jsonl").path
        let toFile = try facecam("detect", "--output", path, "Fixtures/images")
        #expect(toFile.status == 0 && toFile.stdout.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == (try facecam("detect", "Fixtures/images")).stdout)
    }

    @Test func badInputsAreReportedAndTheRestStillProcessed() throws {
        let directory = try temporaryDirectory("bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: fixture("images/grace_hopper.jpg")))
        let png = try Data(contentsOf: URL(fileURLWithPath: fixture("images/astronaut.png")))
        let truncatedJPEG = directory.appendingPathComponent("truncated.jpg").path
        let truncatedPNG = directory.appendingPathComponent("truncated.png").path
        let text = directory.appendingPathComponent("notes.jpg").path
        let empty = directory.appendingPathComponent("empty.png").path
        try jpeg.prefix(jpeg.count * 2 / 3).write(to: URL(fileURLWithPath: truncatedJPEG))
        try png.prefix(png.count / 2).write(to: URL(fileURLWithPath: truncatedPNG))
        try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: text))
        try Data().write(to: URL(fileURLWithPath: empty))
        let missing = directory.appendingPathComponent("missing.jpg").path

        let result = try facecam(
            "detect", "Fixtures/images/astronaut.png", truncatedJPEG, truncatedPNG, text, empty, missing,
            directory.path, "/dev/null", "Fixtures/images/grace_hopper.jpg")
        #expect(result.status == 1)
        #expect(try result.records().map { $0["source"] as! String } == ["Fixtures/images/astronaut.png", "Fixtures/images/grace_hopper.jpg"])
        // The directory holds the four bad files again: each bad input is one line, naming it.
        #expect(result.errorLines.count == 10, "\(result.stderr)")
        for path in [truncatedJPEG, truncatedPNG, text, empty, missing, "/dev/null"] {
            #expect(result.errorLines.contains { $0.hasPrefix("facecam: \(path): ") }, "\(path): \(result.stderr)")
        }
        #expect(result.errorLines.contains("facecam: \(missing): cannot read (stat: No such file or directory)"))
        #expect(result.errorLines.contains { $0.hasPrefix("facecam: \(truncatedJPEG): not a readable image: damaged or truncated JPEG") })
        #expect(result.errorLines.contains("facecam: \(truncatedPNG): not a readable image: truncated PNG (it ends before its IEND chunk)"))
    }

    /// A folder of photographs and videos: detect reads the photographs and says how many videos it passed over, and
    /// which command reads them; video the other way round.
    @Test func aMixedFolderSaysWhatWasPassedOver() throws {
        let directory = try temporaryDirectory("mixed-folder")
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["images/astronaut.png", "video/pan-zoom.avi"] {
            try FileManager.default.copyItem(atPath: fixture(name), toPath: directory.appendingPathComponent(URL(fileURLWithPath: name).lastPathComponent).path)
        }
        let detect = try run(facecamBinary, ["detect", "--detector", "yunet", directory.path])
        #expect(detect.status == 0 && detect.lines.count == 1)
        #expect(detect.errorLines == ["facecam: warning: \(directory.path): 1 video passed over: detect reads images (facecam video reads videos, facecam redact both)"])
        let video = try run(facecamBinary, ["video", "--quiet", "--detector", "yunet", "--every", "8", directory.path])
        #expect(video.status == 0)
        #expect(video.errorLines == ["facecam: warning: \(directory.path): 1 image passed over: video reads videos (facecam detect reads images, facecam redact both)"])
    }

    /// A mistyped path is said before any model loads: here the model named is junk, and only the input is reported.
    @Test(arguments: [["detect"], ["video"], ["redact", "--output-dir", "unused"]])
    func aMissingInputIsSaidBeforeAnyModelLoads(_ command: [String]) throws {
        let directory = try temporaryDirectory("missing-first")
        defer { try? FileManager.default.removeItem(at: directory) }
        let junk = directory.appendingPathComponent("junk.onnx").path
        try Data("not a model".utf8).write(to: URL(fileURLWithPath: junk))
        let missing = directory.appendingPathComponent("missing.png").path
        let result = try run(facecamBinary, command + ["--detector", "yunet", "--model", junk, missing])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.errorLines == ["facecam: \(missing): cannot read (stat: No such file or directory)"])
        #expect(result.stdout.isEmpty)
    }

    /// video and redact say so too, beside the files other inputs give; redact has no --recursive to name.
    @Test(arguments: [
        (["video", "--quiet", "--every", "8"], "Fixtures/video/crossing.avi", "(by extension: 3gp, avi,", " (--recursive enters subdirectories)"),
        (["redact", "--quiet", "--output-dir", "OUT"], "Fixtures/images/astronaut.png", "(by extension: 3gp, avi, bmp,", ""),
    ])
    func aFolderThatGivesNothingIsSaidBesideTheOthers(command: [String], file: String, extensions: String, hint: String) throws {
        let empty = try temporaryDirectory("nothing-here")
        defer { try? FileManager.default.removeItem(at: empty) }
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("sub"), withIntermediateDirectories: false)
        let output = empty.appendingPathComponent("sub").path
        let result = try run(facecamBinary, command.map { $0 == "OUT" ? output : $0 } + [empty.path, file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines.count == 1 && result.stderr.hasPrefix("facecam: warning: \(empty.path): no file to read in it \(extensions)"))
        #expect(result.stderr.hasSuffix("; its one subdirectory was not entered\(hint)\n"), "\(result.stderr)")
        #expect(!result.stdout.isEmpty, "the other input is still done")
    }

    @Test func minFacesSetsStatusTwo() throws {
        #expect(try facecam("detect", "--min-faces", "1", "Fixtures/images/astronaut.png").status == 0)
        let tooFew = try facecam("detect", "--min-faces", "1", "Fixtures/images/astronaut.png", "Fixtures/images/chelsea.png")
        #expect(tooFew.status == 2)
        #expect(tooFew.lines.count == 2)
        #expect(tooFew.errorLines == ["facecam: 1 frame has fewer than 1 face (--min-faces), the first: Fixtures/images/chelsea.png frame 0"])
        #expect(try facecam("detect", "--min-faces", "2", "Fixtures/images/two-faces.jpg").status == 0)
        // A check of nothing does not pass: a folder without images gives no frame.
        let empty = try temporaryDirectory("no-images")
        defer { try? FileManager.default.removeItem(at: empty) }
        let none = try facecam("detect", "--min-faces", "1", empty.path)
        #expect(none.status == 2)
        let warning = "facecam: warning: \(empty.path): no file to read in it (by extension: bmp, jpe, jpeg, jpg, pbm, pgm, png, pnm, ppm, tif, tiff, webp)"
        #expect(none.errorLines == [warning, "facecam: no frame was read, so none has 1 face (--min-faces): check that the inputs hold images"])
        // An empty folder is no error (an inbox may be empty), but it is said.
        let nothing = try facecam("detect", empty.path)
        #expect(nothing.status == 0 && nothing.stdout.isEmpty && nothing.errorLines == [warning])
        try FileManager.default.createDirectory(at: empty.appendingPathComponent("2026"), withIntermediateDirectories: false)
        let nested = try facecam("detect", empty.path)
        #expect(nested.errorLines == [warning + "; its one subdirectory was not entered (--recursive enters subdirectories)"])
        // A failed input outranks too few faces.
        #expect(try facecam("detect", "--min-faces", "1", "Fixtures/images/chelsea.png", "/nonexistent.jpg").status == 1)
    }

    @Test func apertureThatDoesNotFitAnImageIsThatImagesError() throws {
        let result = try facecam("detect", "--aperture", "0,0,600,400", "Fixtures/images/coffee.png", "Fixtures/images/astronaut.png")
        #expect(result.status == 1)
        #expect(result.lines.count == 1)
        #expect(result.errorLines == [
            "facecam: Fixtures/images/astronaut.png: --aperture does not fit: aperture 0,0,600,400 is not inside the 512x512 frame",
        ])
    }
}
