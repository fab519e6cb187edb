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
    /// frame k + 1's keyframes are frame k's boxes in JSON Lines, with their track ids.
    @Test func labelStudioReadsTheVideoTracks() throws {
        let directory = try temporaryDirectory("labelstudio-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tasks = directory.appendingPathComponent("tasks.json").path
        let clip = fixture("video/pan-zoom.avi")
        let written = try run(facecamBinary, ["video", "--quiet", "--format", "labelstudio", "-o", tasks, clip])
        #expect(written.status == 0, "\(written.stderr)")
        let records = try run(facecamBinary, ["video", "--quiet", clip]).records()
        let size = (records[0]["preview_size"] as! [NSNumber]).map(\.stringValue)
        let imported = try Self.labelStudio(["video", tasks] + size)
        var faces = 0
        for record in records {
            let expected = (record["faces"] as! [[String: Any]]).map { face in
                ((face["preview"] as! [NSNumber]).map(\.doubleValue), "track\(face["id"] as! Int)")
            }
            let keys = (imported[String((record["frame"] as! Int) + 1)] as? [[Any]] ?? []).map { key in
                ((key[0..<4]).map { ($0 as! NSNumber).doubleValue }, key[4] as! String)
            }
            #expect(keys.count == expected.count && zip(keys, expected).allSatisfy { key, face in
                key.1 == face.1 && zip(key.0, face.0).allSatisfy { abs($0 - $1) < 1e-3 }
            }, "frame \(record["frame"]!): \(keys) against \(expected)")
            faces += expected.count
        }
        #expect(faces > 10)
    }

    /// eval reads a VOC ground truth: Fixtures/evaluation's hand-computed case (README there) as VOC
    /// XML, the crowd region `difficult`, and its run as JSON Lines: AP 0.835 as computed by hand.
    @Test func evalReadsVOCGroundTruth() throws {
        let directory = try temporaryDirectory("voc-truth")
        defer { try? FileManager.default.removeItem(at: directory) }
        let annotations = directory.appendingPathComponent("truth/Annotations")
        try FileManager.default.createDirectory(at: annotations, withIntermediateDirectories: true)
        func object(_ x: Int, _ y: Int, _ size: Int, difficult: Int = 0) -> String {
            "<object><name>face</name><difficult>\(difficult)</difficult><bndbox><xmin>\(x)</xmin><ymin>\(y)</ymin>"
                + "<xmax>\(x + size)</xmax><ymax>\(y + size)</ymax></bndbox></object>"
        }
        let header = "<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<annotation><folder></folder>"
        try (header + "<filename>a.jpg</filename>" + object(10, 10, 20) + object(100, 100, 40) + object(200, 200, 40, difficult: 1)
             + "<object><name>person</name><bndbox><xmin>0</xmin><ymin>0</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object></annotation>")
            .write(to: annotations.appendingPathComponent("a.xml"), atomically: true, encoding: .utf8)
        try (header + "<filename>b.jpg</filename></annotation>").write(to: annotations.appendingPathComponent("b.xml"), atomically: true, encoding: .utf8)
        let run = directory.appendingPathComponent("run.jsonl")
        try """
            {"source":"photos/a.jpg","frame":0,"time":0,"faces":[{"preview":[10,10,20,20],"score":0.9},{"preview":[100,100,40,40],"score":0.6},{"preview":[200,200,40,40],"score":0.7}]}
            {"source":"photos/b.jpg","frame":0,"time":0,"faces":[{"preview":[50,50,40,40],"score":0.8}]}

            """.write(to: run, atomically: true, encoding: .utf8)
        let record = try EvalCommandTests.evaluate(["--ground-truth", directory.appendingPathComponent("truth").path, run.path])
        #expect(abs(EvalCommandTests.figure(record, "ap") - 0.835) < 0.0005, "\(record)")
    }

    /// eval reads runs in CVAT's XML and Label Studio's tasks: Fixtures/evaluation's hand-computed run
    /// (README there) written in each, against its COCO ground truth: AP 0.835 as computed by hand.
    @Test func evalReadsCVATAndLabelStudioRuns() throws {
        let directory = try temporaryDirectory("runs")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Fixtures/evaluation/run.json: image, box, score.
        let run: [(String, [Double], Double)] = [
            ("a.jpg", [10, 10, 20, 20], 0.9), ("b.jpg", [50, 50, 40, 40], 0.8), ("a.jpg", [200, 200, 30, 30], 0.7),
            ("a.jpg", [101, 101, 40, 40], 0.6),
        ]
        let cvat = directory.appendingPathComponent("run.xml")
        try ("<?xml version=\"1.0\"?>\n<annotations><version>1.1</version><meta><task><name>t</name></task></meta>"
             + ["a.jpg", "b.jpg"].enumerated().map { index, name in
                "<image id=\"\(index)\" name=\"photos/\(name)\" width=\"320\" height=\"240\">"
                    + run.filter { $0.0 == name }.map { _, b, score in
                        "<box label=\"face\" xtl=\"\(b[0])\" ytl=\"\(b[1])\" xbr=\"\(b[0] + b[2])\" ybr=\"\(b[1] + b[3])\">"
                            + "<attribute name=\"score\">\(score)</attribute></box>"
                    }.joined() + "</image>"
             }.joined() + "</annotations>\n").write(to: cvat, atomically: true, encoding: .utf8)
        let tasks = ["a.jpg", "b.jpg"].map { name -> [String: Any] in
            let results = run.filter { $0.0 == name }.map { _, b, score -> [String: Any] in
                ["type": "rectanglelabels", "original_width": 320, "original_height": 240, "score": score,
                 "value": ["x": b[0] / 3.2, "y": b[1] / 2.4, "width": b[2] / 3.2, "height": b[3] / 2.4, "rectanglelabels": ["face"]]]
            }
            return ["data": ["image": "/data/local-files/?d=photos%2F\(name)"], "predictions": [["model_version": "hand", "result": results]]]
        }
        let labelStudio = directory.appendingPathComponent("run.json")
        try JSONSerialization.data(withJSONObject: tasks).write(to: labelStudio)
        let record = try EvalCommandTests.evaluate(["--ground-truth", fixture("evaluation/truth.json"), cvat.path, labelStudio.path])
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 0) - 0.835) < 0.0005, "\(record)")
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 1) - 0.835) < 0.0005, "\(record)")
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
            "video", "--quiet", "--detector", "haar", "--format", "labelstudio", fixture("video/pan-zoom.avi"), fixture("video/crossing.avi"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let tasks = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        #expect(tasks.map { ($0["data"] as! [String: String])["video"] } == [fixture("video/pan-zoom.avi"), fixture("video/crossing.avi")])
    }

    /// Names made from inputs stay inside the dataset folder: a video named "...avi" (stem "..") gets a
    /// folder "_..", and a control character in a name does not reach the file system.
    @Test func datasetNamesStayInsideTheFolder() throws {
        let directory = try temporaryDirectory("dataset-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = directory.appendingPathComponent("in/sub")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
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

    /// A folder format needs --output-dir, and live refuses the dataset formats: one line, status 64.
    @Test func datasetFormatsNeedTheirPlace() throws {
        let yolo = try run(facecamBinary, ["detect", "--format", "yolo", fixture("images")])
        #expect(yolo.status == 64 && yolo.stderr.contains("--format yolo writes a folder of files: give --output-dir DIR"), "\(yolo.stderr)")
        let live = try run(facecamBinary, ["live", "--format", "cvat", "--source", fixture("video/pan-zoom.avi")])
        #expect(live.status == 64 && live.stderr.contains("--format cvat is a dataset"), "\(live.stderr)")
        let resume = try run(facecamBinary, ["video", "--format", "voc", "--output-dir", "/tmp/x", "--resume", fixture("video/pan-zoom.avi")])
        #expect(resume.status == 64 && resume.stderr.contains("cannot split"), "\(resume.stderr)")
        let both = try run(facecamBinary, ["detect", "--format", "wider", "--output-dir", "/tmp/x", "-o", "/tmp/y", fixture("images")])
        #expect(both.status == 64 && both.stderr.contains("--output-dir and --output both say where results go"), "\(both.stderr)")
    }
}
