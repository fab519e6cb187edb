@testable import FaceCamCLI
import Foundation
import Testing

/// facecam eval and --format coco, against pycocotools (PyPI, in .build/eval-venv, which make
/// test-deps makes) and Tests/Reference/wider_eval.py.
struct EvalCommandTests {
    static let python = repository.appendingPathComponent(".build/eval-venv/bin/python").path
    static let script = repository.appendingPathComponent("Tests/Reference/coco_reference.py").path

    static func reference(_ arguments: [String]) throws -> [String: Any] {
        try #require(FileManager.default.isExecutableFile(atPath: python), "\(python) is missing: make test-deps installs pycocotools there")
        let result = try run(URL(fileURLWithPath: python), [script] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return try #require(try result.records().last)
    }

    /// eval's JSON object for `arguments`, scored in this process: `Eval.evaluated` and `Eval.text`, what the binary prints.
    static func evaluate(_ arguments: [String]) throws -> [String: Any] {
        let eval = try Eval.parse(["--format", "json"] + arguments)
        let (truth, runs) = try eval.evaluated()
        return try #require(try JSONSerialization.jsonObject(with: Data(eval.text(truth, runs).utf8)) as? [String: Any])
    }

    /// A figure of the band `band` (0: all faces) of run `index`.
    static func figure(_ record: [String: Any], _ name: String, run index: Int = 0, band: Int = 0) -> Double {
        let runs = record["runs"] as! [[String: Any]]
        let bands = runs[index]["bands"] as! [[String: Any]]
        return (bands[band][name] as! NSNumber).doubleValue
    }

    /// detect --format coco on the crowd photographs: pycocotools reads it as detections against the
    /// crowd labels made COCO (every face counted), and eval's AP on the same files equals its AP.
    @Test(.enabled(if: CenterFaceCommandTests.crowdAvailable, "../shared/data/crowd is absent"))
    func cocoOutputAgreesWithPycocotools() throws {
        let directory = try temporaryDirectory("eval-coco")
        defer { try? FileManager.default.removeItem(at: directory) }
        let truth = directory.appendingPathComponent("gt.json").path
        _ = try Self.reference(["crowd", CrowdTests.labels, truth])
        let found = directory.appendingPathComponent("found.json").path
        let photographs = try CrowdTests.photographs(heldOut: false) + CrowdTests.photographs(heldOut: true)
        let detect = try run(facecamBinary, ["detect", "--score-threshold", "0.3", "--format", "coco", "-o", found] + photographs)
        #expect(detect.status == 0, "\(detect.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: found))) as! [String: Any]
        #expect((document["images"] as! [Any]).count == photographs.count)
        let expected = (try Self.reference(["ap", truth, found])["ap"] as! NSNumber).doubleValue
        let record = try Self.evaluate(["--ground-truth", truth, found])
        #expect(expected > 0.1 && abs(Self.figure(record, "ap") - expected) < 0.005, "\(record) against \(expected)")
    }

    /// Datumaro imports detect --format coco --image-root as a COCO dataset (its layout:
    /// annotations/instances_default.json, images/default/), finds every image by its name, and
    /// reads the boxes facecam's JSON Lines give for the same run (preview boxes), within 1e-6.
    @Test func datumaroImportsTheCOCOOutput() throws {
        let directory = try temporaryDirectory("eval-datumaro")
        defer { try? FileManager.default.removeItem(at: directory) }
        let annotations = try directory.madeFolder("annotations")
        try directory.madeFolder("images")
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("images/default").path, withDestinationPath: fixture("images"))
        let coco = try run(facecamBinary, [
            "detect", "--format", "coco", "--image-root", fixture("images"),
            "-o", annotations.appendingPathComponent("instances_default.json").path, fixture("images"),
        ])
        #expect(coco.status == 0, "\(coco.stderr)")
        try Self.expectFixtureBoxes(try Self.reference(["datumaro", "coco_instances", directory.path]))
    }

    /// detect's run over the fixture photographs with some options, made once a test run.
    static let fixtureDetections = OnceARun<[String], Run> { options in try run(facecamBinary, ["detect"] + options + [fixture("images")]) }

    /// `imported` (image name without extension to boxes) holds, in any order, the preview boxes
    /// detect's JSON Lines give for the six fixture photographs (with `options`), within `tolerance`.
    static func expectFixtureBoxes(_ imported: [String: Any], options: [String] = [], tolerance: Double = 1e-6) throws {
        let lines = try fixtureDetections(options)
        #expect(lines.status == 0, "\(lines.stderr)")
        let records = try lines.records()
        #expect(imported.count == records.count && records.count == 6, "\(imported)")
        for record in records {
            let name = URL(fileURLWithPath: record["source"] as! String).deletingPathExtension().lastPathComponent
            // In any order: Datumaro's need not be the file's.
            let expected = (record["faces"] as! [[String: Any]]).map { ($0["preview"] as! [NSNumber]).map(\.doubleValue) }
                .sorted { $0.lexicographicallyPrecedes($1) }
            let boxes = try #require(imported[name] as? [[NSNumber]], "\(name) not imported: \(imported)").map { $0.map(\.doubleValue) }
                .sorted { $0.lexicographicallyPrecedes($1) }
            #expect(boxes.count == expected.count && zip(boxes, expected).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) < tolerance } },
                    "\(name): \(boxes) against \(expected)")
        }
    }

    /// Datumaro imports --format wider (its layout: wider_face_split/wider_face_default_bbx_gt.txt,
    /// WIDER_default/images/) with JSON Lines' boxes, images named by --image-root.
    @Test func datumaroImportsTheWiderOutput() throws {
        let directory = try temporaryDirectory("eval-wider")
        defer { try? FileManager.default.removeItem(at: directory) }
        let split = try directory.madeFolder("wider_face_split")
        try directory.madeFolder("WIDER_default/images")
        // A copy: Datumaro refuses an image whose real path is outside the dataset.
        try FileManager.default.copyItem(
            atPath: fixture("images"), toPath: directory.appendingPathComponent("WIDER_default/images/images").path)
        let wider = try run(facecamBinary, [
            "detect", "--format", "wider", "--image-root", fixture(""),
            "-o", split.appendingPathComponent("wider_face_default_bbx_gt.txt").path, fixture("images"),
        ])
        #expect(wider.status == 0, "\(wider.stderr)")
        try Self.expectFixtureBoxes(try Self.reference(["datumaro", "wider_face", directory.path]))
    }

    /// Datumaro imports video --format mot as a MOT sequence (gt/gt.txt): frame k + 1 holds frame k's
    /// boxes and track ids, as JSON Lines give them.
    @Test func datumaroImportsTheMOTOutput() throws {
        let directory = try temporaryDirectory("eval-mot")
        defer { try? FileManager.default.removeItem(at: directory) }
        try directory.madeFolder("gt")
        let clip = fixture("video/pan-zoom.avi")
        let mot = try run(facecamBinary, ["video", "--quiet", "--format", "mot", "-o", directory.appendingPathComponent("gt/gt.txt").path, clip])
        #expect(mot.status == 0, "\(mot.stderr)")
        let lines = try run(facecamBinary, ["video", "--quiet", clip])
        // Each box with its track id, as a number: x, y, width, height, id.
        let imported = try Self.reference(["datumaro", "mot_seq", directory.path]).compactMapValues { $0 as? [[NSNumber]] }.mapValues { boxes in
            boxes.map { box in (Array(box.map(\.doubleValue).prefix(4)), box.count == 5 ? "\(box[4].doubleValue)" : "\(box.count) numbers") }
        }
        Self.expectTracks(imported, as: try lines.records(), name: { "\(Double($0))" })
    }

    /// A labelling tool's import of video's tracks, `imported` (frame k + 1 to its boxes and track names), holds for
    /// each frame k what video's JSON Lines `records` give (`box` makes a face's box of its preview box, `name` its
    /// track's name of its id), within `tolerance`, over more than 10 faces.
    static func expectTracks(
        _ imported: [String: [([Double], String)]], as records: [[String: Any]], tolerance: Double = 0,
        box: ([Double]) -> [Double] = { $0 }, name: (Int) -> String = { String($0) }
    ) {
        var faces = 0
        for record in records {
            let expected = (record["faces"] as! [[String: Any]]).map { face in
                (box((face["preview"] as! [NSNumber]).map(\.doubleValue)), name(face["id"] as! Int))
            }
            let found = imported[String((record["frame"] as! Int) + 1)] ?? []
            #expect(found.count == expected.count && zip(found, expected).allSatisfy { found, face in
                found.1 == face.1 && found.0.count == face.0.count && zip(found.0, face.0).allSatisfy { abs($0 - $1) <= tolerance }
            }, "frame \(record["frame"]!): \(found) against \(expected)")
            faces += expected.count
        }
        #expect(faces > 10)
    }

    /// Without detection files eval detects itself: on the crowd labels (WIDER's hard set, the
    /// other faces ignored) its hits and false positives equal wider_eval.py's on detect's records.
    @Test(.enabled(if: CenterFaceCommandTests.crowdAvailable, "../shared/data/crowd is absent"))
    func detectingItselfAgreesWithWiderReference() throws {
        let directory = try temporaryDirectory("eval-self")
        defer { try? FileManager.default.removeItem(at: directory) }
        let records = directory.appendingPathComponent("found.jsonl").path
        let photographs = try CrowdTests.photographs(heldOut: false) + CrowdTests.photographs(heldOut: true)
        let detect = try run(facecamBinary, ["detect", "--score-threshold", "0.5", "-o", records] + photographs)
        #expect(detect.status == 0, "\(detect.stderr)")
        let expected = try CrowdTests.evaluate(["detections", CrowdTests.labels, records])
        let record = try Self.evaluate(["--ground-truth", CrowdTests.labels, "--score-threshold", "0.5"])
        #expect(Self.figure(record, "hits") == (expected["hits"] as! NSNumber).doubleValue, "\(record) against \(expected)")
        #expect(Self.figure(record, "false_positives") == (expected["false"] as! NSNumber).doubleValue, "\(record) against \(expected)")
        #expect(abs(Self.figure(record, "recall") - (expected["recall"] as! NSNumber).doubleValue) < 1e-6)
    }

    /// --plot draws one curve per run, in an SVG that an XML parser (Python's) reads.
    @Test func plotDrawsEachRun() throws {
        let directory = try temporaryDirectory("eval-plot")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.reference(["synthetic", directory.path])
        let chart = directory.appendingPathComponent("curves.svg").path
        let result = try run(facecamBinary, [
            "eval", "--ground-truth", directory.appendingPathComponent("gt.json").path, "--plot", chart,
            directory.appendingPathComponent("results.json").path, directory.appendingPathComponent("detections.jsonl").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let parsed = try run(URL(fileURLWithPath: SharedDataTests.python), [
            "-c", "import sys, xml.etree.ElementTree as E; print(len(E.parse(sys.argv[1]).getroot().findall('{http://www.w3.org/2000/svg}polyline')))",
            chart,
        ])
        #expect(parsed.status == 0 && parsed.stdout == "2\n", "\(parsed.stderr)")
    }

    /// A run's file named with control characters still makes well-formed XML; a chart that would
    /// overwrite one of the inputs is refused (64) before anything is read, the input unchanged.
    @Test func plotNamesAreEscapedAndInputsKept() throws {
        let directory = try temporaryDirectory("eval-plot-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try Self.reference(["synthetic", directory.path])
        let truth = directory.appendingPathComponent("gt.json").path
        let odd = directory.appendingPathComponent("run\u{1}\u{1b}]0;title\u{7}.jsonl").path
        try FileManager.default.copyItem(atPath: directory.appendingPathComponent("detections.jsonl").path, toPath: odd)
        let chart = directory.appendingPathComponent("curves.svg").path
        let result = try run(facecamBinary, ["eval", "--ground-truth", truth, "--plot", chart, odd])
        #expect(result.status == 0, "\(result.stderr)")
        let parsed = try run(URL(fileURLWithPath: SharedDataTests.python), [
            "-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1]); print('ok')", chart,
        ])
        #expect(parsed.status == 0 && parsed.stdout == "ok\n", "\(parsed.stderr)")

        let input = directory.appendingPathComponent("run.svg").path
        try FileManager.default.copyItem(atPath: directory.appendingPathComponent("detections.jsonl").path, toPath: input)
        let before = FileManager.default.contents(atPath: input)
        let refused = try run(facecamBinary, ["eval", "--ground-truth", truth, "--plot", input, input])
        #expect(refused.status == 64)
        #expect(refused.errorLines.count == 1 && refused.errorLines[0].contains("--plot \(input) is also an input"), "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: input) == before)
    }

    /// A COCO file is renamed to its name only when whole: a run stopped by SIGINT ends the
    /// document (the images done, their faces) but leaves it under its partial name, saying so.
    @Test func anInterruptedCOCOFileKeepsItsPartialName() throws {
        let directory = try temporaryDirectory("eval-interrupt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("faces.json").path
        let partial = { try? FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasPrefix("faces.json.partial-") } }
        let inputs = Array(repeating: "Fixtures/images/two-faces.jpg", count: 200)
        let (result, signalled) = try interrupt(facecamBinary, ["detect", "--jobs", "1", "--format", "coco", "-o", output] + inputs) { _ in
            // The opening, then an image a line: a few images are in.
            guard let name = partial() ?? nil,
                  let text = try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8) else { return false }
            return text.split(separator: "\n").count >= 4
        }
        try #require(signalled, "\(result.stderr)")
        #expect(result.status == 130)
        #expect(!FileManager.default.fileExists(atPath: output))
        let name = try #require(partial() ?? nil)
        #expect(result.errorLines.first == "facecam: the results so far are in \(output)\(name.dropFirst("faces.json".count)), which keeps that name since the run stopped early")
        let document = try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent(name))) as! [String: Any]
        let images = (document["images"] as! [Any]).count
        #expect(images >= 2 && images < 200)
        #expect((document["annotations"] as! [Any]).count == 2 * images)
    }

    /// An unusable input is one line on standard error naming the file (and line), status 64, nothing on standard output.
    @Test func badInputsAreOneLine() throws {
        let directory = try temporaryDirectory("eval-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let truth = directory.appendingPathComponent("gt.jsonl").path
        try Data("{\"source\":\"a.jpg\",\"faces\":[{\"box\":[1,2,3,4]}]}\n".utf8).write(to: URL(fileURLWithPath: truth))
        let damaged = directory.appendingPathComponent("damaged.jsonl").path
        try Data("{\"source\":\"a.jpg\",\"faces\":[]}\n{\"source\":\n".utf8).write(to: URL(fileURLWithPath: damaged))
        let stranger = directory.appendingPathComponent("stranger.jsonl").path
        try Data("{\"source\":\"b.jpg\",\"faces\":[]}\n".utf8).write(to: URL(fileURLWithPath: stranger))
        let cases: [([String], String)] = [
            ([damaged], "facecam: \(damaged) line 2: not a JSON object: check that the file is facecam's JSON Lines"),
            ([stranger], "facecam: \(stranger): b.jpg is not an image of the ground truth \(truth): check that both files describe the same images"),
            ([], "facecam: \(truth): \(directory.path)/a.jpg: cannot read (open: No such file or directory): eval looks up its images"),
            (["missing.jsonl"], "facecam: missing.jsonl: No such file or directory: check the path"),
        ]
        for (arguments, message) in cases {
            let result = try run(facecamBinary, ["eval", "--ground-truth", truth] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.errorLines.last?.hasPrefix(message) == true, "\(result.stderr)")
        }
    }
}

/// eval's scores in this process, from files made by hand or by pycocotools' side, against figures worked out by hand and
/// pycocotools' own.
struct EvalTests {
    /// A seeded synthetic set (814 faces, 6 to 150 pixels tall, 862 detections): eval's AP equals
    /// pycocotools' within 0.005, read from the COCO results list and from the same detections as
    /// facecam's JSON Lines (which name the images by longer paths).
    @Test func apAgreesWithPycocotools() throws {
        let directory = try temporaryDirectory("eval-synthetic")
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = (try EvalCommandTests.reference(["synthetic", directory.path])["ap"] as! NSNumber).doubleValue
        let record = try EvalCommandTests.evaluate([
            "--ground-truth", directory.appendingPathComponent("gt.json").path,
            directory.appendingPathComponent("results.json").path, directory.appendingPathComponent("detections.jsonl").path,
        ])
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 0) - expected) < 0.005, "\(record) against \(expected)")
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 1) - expected) < 0.005, "\(record) against \(expected)")
    }

    /// eval reads a VOC ground truth: Fixtures/evaluation's hand-computed case (README there) as VOC
    /// XML, the crowd region `difficult`, and its run as JSON Lines: AP 0.835 as computed by hand.
    @Test func evalReadsVOCGroundTruth() throws {
        let directory = try temporaryDirectory("voc-truth")
        defer { try? FileManager.default.removeItem(at: directory) }
        let annotations = try directory.madeFolder("truth/Annotations")
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
    /// (README there) written in each, against its COCO ground truth: AP 0.835 as computed by hand
    /// (Label Studio's rectangles labelled car, best scored, left out).
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
        // A rectangle labelled car is no face, as in CVAT and VOC.
        let tasks = ["a.jpg", "b.jpg"].map { name -> [String: Any] in
            let results = (run.filter { $0.0 == name } + [(name, [0, 0, 320, 240], 0.95)]).enumerated().map { index, detection -> [String: Any] in
                let (_, b, score) = detection
                return ["type": "rectanglelabels", "original_width": 320, "original_height": 240, "score": score,
                        "value": ["x": b[0] / 3.2, "y": b[1] / 2.4, "width": b[2] / 3.2, "height": b[3] / 2.4,
                                  "rectanglelabels": [b[2] == 320 ? "car" : "face"]]]
            }
            return ["data": ["image": "/data/local-files/?d=photos%2F\(name)"], "predictions": [["model_version": "hand", "result": results]]]
        }
        let labelStudio = directory.appendingPathComponent("run.json")
        try JSONSerialization.data(withJSONObject: tasks).write(to: labelStudio)
        let record = try EvalCommandTests.evaluate(["--ground-truth", fixture("evaluation/truth.json"), cvat.path, labelStudio.path])
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 0) - 0.835) < 0.0005, "\(record)")
        #expect(abs(EvalCommandTests.figure(record, "ap", run: 1) - 0.835) < 0.0005, "\(record)")
    }
}
