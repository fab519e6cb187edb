import Foundation
import Testing

/// --format yolo, voc, cvat, labelstudio and wider's detection folder, read back by the tools that
/// import them: Datumaro (.build/eval-venv) and Label Studio's SDK (.build/labelstudio-venv), which
/// make test-deps installs; and eval reading VOC ground truth, against a hand-computed case.
struct DatasetFormatTests {
    static let labelStudioPython = repository.appendingPathComponent(".build/labelstudio-venv/bin/python").path
    static let labelStudioScript = repository.appendingPathComponent("Tests/Reference/labelstudio_reference.py").path

    static func labelStudio(_ arguments: [String]) throws -> [String: Any] {
        try #require(FileManager.default.isExecutableFile(atPath: labelStudioPython),
                     "\(labelStudioPython) is missing: make test-deps installs label-studio-sdk there")
        let result = try run(URL(fileURLWithPath: labelStudioPython), [labelStudioScript] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try result.records().last)
    }

    /// A copy of the fixture photographs at `place` in `directory`: Datumaro refuses images whose real path is outside the dataset.
    static func copyPhotographs(to place: String, in directory: URL) throws {
        let target = directory.appendingPathComponent(place)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture("images"), toPath: target.path)
    }

    static func detect(_ arguments: [String]) throws {
        let result = try run(facecamBinary, ["detect"] + arguments + [fixture("images")])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The face attributes Datumaro reads from detect's CVAT and COCO output for the fixture photographs with `options`
    /// (written in `directory`), by Datumaro's format name: each photograph's faces as `described`, sorted, for the
    /// photographs with faces.
    static func datumaroAttributes(
        _ options: [String], in directory: URL, described: ([String: Any]) -> String
    ) throws -> [String: [String: [String]]] {
        let cvat = try directory.madeFolder("cvat")
        try detect(options + ["--format", "cvat", "--image-root", fixture("images"), "-o", cvat.appendingPathComponent("default.xml").path])
        try copyPhotographs(to: "images", in: cvat)
        let coco = directory.appendingPathComponent("coco")
        try coco.madeFolder("annotations")
        try detect(options + ["--format", "coco", "--image-root", fixture("images"), "-o",
                              coco.appendingPathComponent("annotations/instances_default.json").path])
        try copyPhotographs(to: "images", in: coco)
        var imported: [String: [String: [String]]] = [:]
        for (format, folder) in [("cvat", cvat), ("coco_instances", coco)] {
            imported[format] = try EvalCommandTests.reference(["datumaro-attributes", format, folder.path]).mapValues { faces in
                (faces as! [[String: Any]]).map(described).sorted()
            }.filter { !$0.value.isEmpty }
        }
        return imported
    }

    /// Datumaro imports detect --format yolo (Haar: plain YOLO lines; Datumaro 1.13 reads no YOLO-pose)
    /// from labels/train beside images/train with data.yaml.
    @Test func datumaroImportsTheYOLOOutput() throws {
        let directory = try temporaryDirectory("yolo")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.detect(["--detector", "haar", "--format", "yolo", "--output-dir", directory.path])
        try Self.copyPhotographs(to: "images/train", in: directory)
        try EvalCommandTests.expectFixtureBoxes(
            try EvalCommandTests.reference(["datumaro", "yolo", directory.path]), options: ["--detector", "haar"], tolerance: 1e-3)
    }

    /// An output folder whose name holds DEL, C1 controls and a line separator still gets a data.yaml
    /// PyYAML (what Ultralytics reads it with) loads, its path the folder's.
    @Test func dataYAMLLoadsWhateverTheFoldersName() throws {
        let directory = try temporaryDirectory("yolo-names").appendingPathComponent("set\u{7f}\u{85}\u{9b}\u{2028}x")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try Self.detect(["--format", "yolo", "--output-dir", directory.path])
        let loaded = try run(URL(fileURLWithPath: "/usr/bin/python3"), [
            "-c", "import sys, yaml; print(yaml.safe_load(open(sys.argv[1], encoding='utf-8'))['path'] == sys.argv[2])",
            directory.appendingPathComponent("data.yaml").path, directory.path,
        ])
        #expect(loaded.status == 0 && loaded.stdout == "True\n", "\(loaded.stderr)")
    }

    /// YuNet's YOLO lines carry YOLO-pose keypoints, which no available tool reads: each equals the
    /// face's preview landmarks from JSON Lines over the image's size, and data.yaml declares them.
    @Test func yoloKeypointsAreTheLandmarks() throws {
        let directory = try temporaryDirectory("yolo-pose")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.detect(["--format", "yolo", "--output-dir", directory.path])
        let yaml = try String(contentsOf: directory.appendingPathComponent("data.yaml"), encoding: .utf8)
        #expect(yaml.contains("kpt_shape: [5, 3]\n") && yaml.contains("names:\n  0: face\n"), "\(yaml)")
        let records = try run(facecamBinary, ["detect", fixture("images/two-faces.jpg")]).records()
        let size = (records[0]["preview_size"] as! [NSNumber]).map(\.doubleValue)
        let lines = try String(contentsOf: directory.appendingPathComponent("labels/train/two-faces.txt"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
        let faces = records[0]["faces"] as! [[String: Any]]
        #expect(lines.count == faces.count && faces.count == 2)
        for (line, face) in zip(lines, faces) {
            let points = (face["preview_landmarks"] as! [[NSNumber]]).map { $0.map(\.doubleValue) }
            let expected: [Double] = points.flatMap { point -> [Double] in [point[0] / size[0], point[1] / size[1], 2] }
            #expect(line.count == 20 && zip(line.dropFirst(5), expected).allSatisfy { abs($0 - $1) < 1e-5 }, "\(line) against \(expected)")
        }
    }

    /// Datumaro imports detect --format voc (Annotations/, ImageSets/Main, labelmap.txt) with the images in JPEGImages.
    @Test func datumaroImportsTheVOCOutput() throws {
        let directory = try temporaryDirectory("voc")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.detect(["--format", "voc", "--output-dir", directory.path])
        try Self.copyPhotographs(to: "JPEGImages", in: directory)
        try EvalCommandTests.expectFixtureBoxes(try EvalCommandTests.reference(["datumaro", "voc_detection", directory.path]))
    }

    /// With --quality, Datumaro reads each face's preview pose and quality from CVAT's text attributes
    /// and COCO's `attributes` as JSON Lines reports them, and VOC's `pose` as its viewpoint (Frontal
    /// within 30 degrees of yaw, else the side the face looks to).
    @Test func datumaroReadsThePoseAndQuality() throws {
        let directory = try temporaryDirectory("attributes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = try run(facecamBinary, ["detect", "--quality", fixture("images")])
        #expect(lines.status == 0, "\(lines.stderr)")
        // Each item's faces as sorted "roll yaw pitch quality" texts, and its VOC viewpoints.
        var expected: [String: [String]] = [:], viewpoints: [String: [String]] = [:]
        for record in try lines.records() {
            let item = URL(fileURLWithPath: record["source"] as! String).deletingPathExtension().lastPathComponent
            for face in record["faces"] as! [[String: Any]] {
                let pose = face["preview_pose"] as! [String: Any]
                let values = [pose["roll"]!, pose["yaw"]!, pose["pitch"]!, face["quality"]!].map { "\($0)" }
                expected[item, default: []].append(values.joined(separator: " "))
                let yaw = (pose["yaw"] as! NSNumber).doubleValue
                viewpoints[item, default: []].append(abs(yaw) < 30 ? "Frontal" : yaw > 0 ? "Right" : "Left")
            }
        }
        #expect(expected.values.joined().count == 5)
        let imported = try Self.datumaroAttributes(["--quality"], in: directory) { face in
            ["roll", "yaw", "pitch", "quality"].map { "\(face[$0]!)" }.joined(separator: " ")
        }
        #expect(imported["cvat"] == expected.mapValues { $0.sorted() } && imported["coco_instances"] == imported["cvat"], "\(imported)")
        let voc = directory.appendingPathComponent("voc")
        try Self.detect(["--quality", "--format", "voc", "--output-dir", voc.path])
        let poses = try EvalCommandTests.reference(["datumaro-attributes", "voc_detection", voc.path]).mapValues { faces in
            (faces as! [[String: Any]]).map { "\($0["pose"] ?? "none")" }.sorted()
        }.filter { !$0.value.isEmpty }
        #expect(poses == viewpoints.mapValues { $0.sorted() })
    }

    /// With --recognize and --cluster, Datumaro reads each face's name (empty for someone unknown), distance and
    /// cluster from CVAT's text attributes and COCO's `attributes` as JSON Lines reports them.
    @Test func datumaroReadsTheNamesAndClusters() throws {
        let directory = try temporaryDirectory("identities")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gallery = try RecognitionCommandTests.enrolledGallery(directory)
        let options = ["--recognize", "--cluster", "--gallery", gallery]
        let lines = try run(facecamBinary, ["detect"] + options + [fixture("images")])
        #expect(lines.status == 0, "\(lines.stderr)")
        var expected: [String: [String]] = [:]
        for record in try lines.records() {
            let item = URL(fileURLWithPath: record["source"] as! String).deletingPathExtension().lastPathComponent
            for face in record["faces"] as! [[String: Any]] {
                expected[item, default: []].append("\(face["identity"] as? String ?? "") \(face["distance"]!) \(face["cluster"]!)")
            }
        }
        #expect(expected.values.joined().count == 5 && expected.values.joined().contains { $0.hasPrefix("Hopper ") })
        let imported = try Self.datumaroAttributes(options, in: directory) { face in
            ["identity", "distance", "cluster"].map { "\(face[$0] ?? "missing")" }.joined(separator: " ")
        }
        #expect(imported["cvat"] == expected.mapValues { $0.sorted() } && imported["coco_instances"] == imported["cvat"], "\(imported)")
    }

    /// Datumaro imports detect --format cvat (CVAT for images 1.1) with the images in images/.
    @Test func datumaroImportsTheCVATImages() throws {
        let directory = try temporaryDirectory("cvat")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.detect(["--format", "cvat", "--image-root", fixture("images"), "-o", directory.appendingPathComponent("default.xml").path])
        try Self.copyPhotographs(to: "images", in: directory)
        try EvalCommandTests.expectFixtureBoxes(try EvalCommandTests.reference(["datumaro", "cvat", directory.path]))
    }

    /// Datumaro imports video --format cvat (CVAT for video 1.1) as tracks: frame k's keyframes (outside
    /// boxes, which end tracks, left out) are the boxes and ids JSON Lines give.
    @Test func datumaroImportsTheCVATTracks() throws {
        let directory = try temporaryDirectory("cvat-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = fixture("video/pan-zoom.avi")
        let cvat = try run(facecamBinary, ["video", "--quiet", "--format", "cvat", "-o", directory.appendingPathComponent("default.xml").path, clip])
        #expect(cvat.status == 0, "\(cvat.stderr)")
        let imported = try EvalCommandTests.reference(["datumaro", "cvat", directory.path])
        var faces = 0
        for record in try run(facecamBinary, ["video", "--quiet", clip]).records() {
            let expected = (record["faces"] as! [[String: Any]]).map { ($0["preview"] as! [NSNumber]).map(\.doubleValue) + [Double($0["id"] as! Int)] }
            let frame = String(format: "frame_%06d", record["frame"] as! Int)
            let boxes = (imported[frame] as? [[NSNumber]] ?? []).map { $0.map(\.doubleValue) }
            #expect(boxes == expected, "\(frame)")
            faces += expected.count
        }
        #expect(faces > 10)
    }

    /// Label Studio's SDK validates detect --format labelstudio's predictions against the image
    /// configuration and converts them to COCO: the boxes JSON Lines give, within percent's rounding.
    @Test func labelStudioReadsTheImageTasks() throws {
        let directory = try temporaryDirectory("labelstudio")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tasks = directory.appendingPathComponent("tasks.json").path
        try Self.detect(["--format", "labelstudio", "--image-root", fixture("images"), "-o", tasks])
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tasks))) as! [[String: Any]]
        #expect((document[0]["data"] as! [String: String])["image"] == "/data/local-files/?d=astronaut.png")
        try EvalCommandTests.expectFixtureBoxes(try Self.labelStudio(["images", tasks]), tolerance: 1e-3)
    }

    /// Label Studio's SDK validates video --format labelstudio's tracks and expands their keyframes:
    /// frame k + 1's keyframes are frame k's boxes in JSON Lines (their part inside the frame), with their track ids.
    @Test func labelStudioReadsTheVideoTracks() throws {
        let directory = try temporaryDirectory("labelstudio-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tasks = directory.appendingPathComponent("tasks.json").path
        let clip = fixture("video/pan-zoom.avi")
        let written = try run(facecamBinary, ["video", "--quiet", "--format", "labelstudio", "-o", tasks, clip])
        #expect(written.status == 0, "\(written.stderr)")
        let records = try run(facecamBinary, ["video", "--quiet", clip]).records()
        let size = (records[0]["preview_size"] as! [NSNumber]).map(\.stringValue)
        // Each keyframe: x, y, width, height and the track's name.
        let imported = try Self.labelStudio(["video", tasks] + size).compactMapValues { $0 as? [[Any]] }.mapValues { keys in
            keys.map { key in
                (key.prefix(4).compactMap { ($0 as? NSNumber)?.doubleValue }, key.count == 5 ? key[4] as? String ?? "\(key[4])" : "\(key)")
            }
        }
        let (width, height) = (Double(size[0])!, Double(size[1])!)
        // The part of each box inside the frame: the face leaves it on the left as the clip pans.
        EvalCommandTests.expectTracks(imported, as: records, tolerance: 1e-3, box: { b in
            let x0 = max(b[0], 0), y0 = max(b[1], 0), x1 = min(b[0] + b[2], width), y1 = min(b[1] + b[3], height)
            return [x0, y0, x1 - x0, y1 - y0]
        }, name: { "track\($0)" })
    }

    /// detect --format wider --output-dir on the crowd photographs: wider_eval.py, reading the folder as
    /// WIDER's evaluation does, scores it as it scores the JSON Lines of the same run, and so does eval.
    @Test(.enabled(if: CenterFaceCommandTests.crowdAvailable, "../shared/data/crowd is absent"))
    func widerDetectionFolderScoresAsTheRecords() throws {
        let directory = try temporaryDirectory("wider-folder")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photographs = try CrowdTests.photographs(heldOut: false)
        let records = directory.appendingPathComponent("found.jsonl").path
        let folder = directory.appendingPathComponent("found").path
        for output in [["-o", records], ["--format", "wider", "--output-dir", folder]] {
            let detect = try run(facecamBinary, ["detect", "--score-threshold", "0.5"] + output + photographs)
            #expect(detect.status == 0, "\(detect.stderr)")
        }
        let names = photographs.map { URL(fileURLWithPath: $0).lastPathComponent }
        let expected = try CrowdTests.evaluate(["detections", CrowdTests.labels, records, "--only"] + names)
        let read = try CrowdTests.evaluate(["detections", CrowdTests.labels, folder, "--only"] + names)
        #expect(read["hits"] as! Int == expected["hits"] as! Int && read["false"] as! Int == expected["false"] as! Int, "\(read) against \(expected)")
        #expect(abs((read["ap"] as! NSNumber).doubleValue - (expected["ap"] as! NSNumber).doubleValue) < 1e-4)
        let crowd = directory.appendingPathComponent("truth.json").path
        let labels = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CrowdTests.labels))) as! [String: Any]
        try JSONSerialization.data(withJSONObject: labels.filter { names.contains($0.key) }).write(to: URL(fileURLWithPath: crowd))
        let record = try EvalCommandTests.evaluate(["--ground-truth", crowd, folder])
        #expect(EvalCommandTests.figure(record, "hits") == (expected["hits"] as! NSNumber).doubleValue, "\(record) against \(expected)")
    }

    /// Several videos in one Label Studio file are a task each, named after its video.
    @Test func labelStudioGivesEachVideoATask() throws {
        let result = try run(facecamBinary, [
            "video", "--quiet", "--format", "labelstudio", fixture("video/pan-zoom.avi"), fixture("video/crossing.avi"),
        ] + readingOnly)
        #expect(result.status == 0, "\(result.stderr)")
        let tasks = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        #expect(tasks.map { ($0["data"] as! [String: String])["video"] } == [fixture("video/pan-zoom.avi"), fixture("video/crossing.avi")])
    }

    /// Names made from inputs stay inside the dataset folder: a video named "...avi" (stem "..") gets a
    /// folder "_..", and a control character in a name does not reach the file system.
    @Test func datasetNamesStayInsideTheFolder() throws {
        let directory = try temporaryDirectory("dataset-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = try directory.madeFolder("in/sub")
        let dots = inputs.appendingPathComponent("...avi").path
        try FileManager.default.copyItem(atPath: fixture("video/pan-zoom.avi"), toPath: dots)
        let output = directory.appendingPathComponent("in/sub/out")
        let video = try run(facecamBinary, ["video", "--quiet", "--every", "12", "--format", "wider", "--output-dir", output.path, dots])
        #expect(video.status == 0, "\(video.stderr)")
        let image = inputs.appendingPathComponent("a\u{1b}b.jpg").path
        try FileManager.default.copyItem(atPath: fixture("images/two-faces.jpg"), toPath: image)
        let detect = try run(facecamBinary, ["detect", "--format", "yolo", "--output-dir", output.path, image])
        #expect(detect.status == 0, "\(detect.stderr)")
        let inside = try FileManager.default.subpathsOfDirectory(atPath: output.path).sorted()
        // facecam names the image a\x1Bb.jpg, escaping the control character as it does in messages.
        #expect(inside == ["_../.._000000.txt", "_../.._000012.txt", "_../.._000024.txt", "_..", "data.yaml", "labels",
                           "labels/train", "labels/train/a\\x1Bb.txt"].sorted(), "\(inside)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: inputs.path).sorted() == ["...avi", "a\u{1b}b.jpg", "out"])
    }

    /// A CVAT ground truth whose frame numbers are hostile is one line and status 64, not a crash.
    @Test func evalRefusesHostileCVATFrames() throws {
        let directory = try temporaryDirectory("cvat-frames")
        defer { try? FileManager.default.removeItem(at: directory) }
        let truth = directory.appendingPathComponent("truth.xml")
        try "<annotations><track id=\"1\" label=\"face\"><box frame=\"9223372036854775807\" xtl=\"0\" ytl=\"0\" xbr=\"9\" ybr=\"9\"/></track></annotations>"
            .write(to: truth, atomically: true, encoding: .utf8)
        let result = try run(facecamBinary, ["eval", "--ground-truth", truth.path, truth.path])
        #expect(result.status == 64)
        #expect(result.errorLines == ["facecam: \(truth.path) track 1: a box's frame must be a whole number from 0 to 999999"], "\(result.stderr)")
    }

    /// Names that clash in a dataset folder (Fixtures/exif's portrait-6 in three formats) are made unique
    /// with a warning for each input renamed, and the run still succeeds.
    @Test func clashingNamesAreWarnedAbout() throws {
        let directory = try temporaryDirectory("clashes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try run(facecamBinary, ["detect", "--format", "voc", "--output-dir", directory.path, fixture("exif")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errorLines == ["png", "tiff"].enumerated().map { index, format in
            "facecam: warning: \(fixture("exif"))/portrait-6.\(format): its file is portrait-6-\(index + 2), as another image's took "
                + "portrait-6, so it no longer matches the image's name: rename one of them (images in different folders: give --image-root)"
        }, "\(result.stderr)")
        let xml = try String(contentsOf: directory.appendingPathComponent("Annotations/portrait-6-3.xml"), encoding: .utf8)
        #expect(xml.contains("<filename>portrait-6.tiff</filename>"))
    }

    /// A WIDER file given to -o is renamed to its name only when whole: a run stopped by SIGINT leaves
    /// it under its partial name, saying so, and an earlier finished file of that name untouched.
    @Test func anInterruptedWiderFileKeepsItsPartialName() throws {
        let directory = try temporaryDirectory("wider-interrupt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("faces.txt").path
        try "earlier\n".write(toFile: output, atomically: true, encoding: .utf8)
        let inputs = Array(repeating: "Fixtures/images/two-faces.jpg", count: 200)
        let (result, signalled) = try interrupt(facecamBinary, ["detect", "--jobs", "1", "--format", "wider", "-o", output] + inputs) { _ in
            guard let name = partialFiles(of: output).first,
                  let text = try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8) else { return false }
            return text.split(separator: "\n").count >= 8
        }
        try #require(signalled, "\(result.stderr)")
        #expect(result.status == 130)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "earlier\n")
        let name = try #require(partialFiles(of: output).first)
        #expect(result.errorLines.first == "facecam: the results so far are in \(directory.appendingPathComponent(name).path), which keeps that name since the run stopped early")
    }

    /// With --output-dir, a run stopped by SIGINT keeps the files of the inputs it finished, and says
    /// that the input it stopped in has none (the partial file goes: --resume redoes that input).
    @Test func anInterruptedResultDirectorySaysWhatItKept() throws {
        let directory = try temporaryDirectory("directory-interrupt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("pan-zoom.json").path
        let inputs = Array(repeating: fixture("video/pan-zoom.avi"), count: 20)
        let (result, signalled) = try interrupt(
            facecamBinary, ["video", "--quiet", "--format", "coco", "--output-dir", directory.path] + inputs
        ) { _ in FileManager.default.fileExists(atPath: first) }
        try #require(signalled, "\(result.stderr)")
        #expect(result.status == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left.contains("pan-zoom.json") && !left.contains { $0.contains(".partial-") } && left.count < 20, "\(left)")
        #expect(result.errorLines.last?.hasSuffix(
            "; the inputs finished before it have their results files; that input has none (--resume redoes it)") == true, "\(result.stderr)")
    }

    /// A folder planted as a link inside a dataset folder (labels/train pointing elsewhere) is refused,
    /// and nothing is written where it points.
    @Test func aLinkedFolderInsideTheDatasetIsRefused() throws {
        let directory = try temporaryDirectory("dataset-link")
        defer { try? FileManager.default.removeItem(at: directory) }
        let elsewhere = try directory.madeFolder("elsewhere")
        try directory.madeFolder("out/labels")
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("out/labels/train").path, withDestinationPath: elsewhere.path)
        let result = try run(facecamBinary, ["detect", "--format", "yolo", "--output-dir", directory.appendingPathComponent("out").path,
                                             fixture("images/two-faces.jpg")])
        #expect(result.status == 1)
        #expect(result.errorLines == ["facecam: cannot write results to \(directory.path)/out/labels/train: Not a directory"], "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    /// Boxes a preview cuts (`--gravity fill` crops the image) are clipped to it in Label Studio's tasks,
    /// which its SDK then accepts, and in VOC, marked truncated.
    @Test func boxesPastThePreviewsEdgeAreClipped() throws {
        let directory = try temporaryDirectory("clipped")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tasks = directory.appendingPathComponent("tasks.json").path
        let geometry = ["--preview", "300x100", "--gravity", "fill"]
        try Self.detect(geometry + ["--format", "labelstudio", "-o", tasks])
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tasks))) as! [[String: Any]]
        let values = document.flatMap { (($0["predictions"] as! [[String: Any]])[0]["result"] as! [[String: Any]]).map { $0["value"] as! [String: Any] } }
        #expect(!values.isEmpty && values.allSatisfy { value in
            let (x, y, w, h) = ((value["x"] as! NSNumber).doubleValue, (value["y"] as! NSNumber).doubleValue,
                                (value["width"] as! NSNumber).doubleValue, (value["height"] as! NSNumber).doubleValue)
            return x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 100.0001 && y + h <= 100.0001
        }, "\(values)")
        _ = try Self.labelStudio(["images", tasks])
        try Self.detect(geometry + ["--format", "voc", "--output-dir", directory.appendingPathComponent("voc").path])
        let xml = try String(contentsOf: directory.appendingPathComponent("voc/Annotations/two-faces.xml"), encoding: .utf8)
        #expect(xml.contains("<truncated>1</truncated>") && !xml.contains("<ymin>-"), "\(xml)")
    }
}
