import Foundation
import Testing
@testable import FaceCamCore

/// facecam eval's parts on hand-computed cases; EvalCommandTests checks the command against pycocotools.
struct EvaluationTests {
    static func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double, score: Double = 1, ignored: Bool = false) -> ListedFace {
        ListedFace(box: Rect(x: x, y: y, width: w, height: h), score: score, ignored: ignored)
    }

    static func list(_ images: [ListedImage], everyImage: Bool = true) -> FaceList {
        FaceList(path: "list", format: .jsonl, images: images, listsEveryImage: everyImage)
    }

    /// Two faces; a hit at 0.9, a false positive at 0.8, a hit at 0.7. Precision 1, 1/2, 2/3 at recall
    /// 1/2, 1/2, 1; made monotone: 1, 2/3, 2/3. COCO's 101 points: recall 0 to 0.5 (51 points) read 1,
    /// 0.51 to 1 (50 points) read 2/3: AP = (51 + 50 * 2/3) / 101.
    @Test func averagePrecisionByHand() throws {
        let truth = Self.list([ListedImage(name: "a.jpg", faces: [Self.face(0, 0, 20, 20), Self.face(100, 100, 40, 40)])])
        let found = Self.list([ListedImage(name: "a.jpg", faces: [
            Self.face(101, 101, 40, 40, score: 0.7), Self.face(0, 0, 20, 20, score: 0.9), Self.face(50, 50, 20, 20, score: 0.8),
        ])])
        let all = try Evaluation(detections: found, truth: truth).bands[0]
        #expect(abs(all.averagePrecision - (51 + 50 * 2.0 / 3) / 101) < 1e-12)
        #expect(all.curve.map(\.score) == [0.9, 0.8, 0.7])
        #expect((all.hits, all.falsePositives, all.faces) == (2, 1, 2))
        let at = try Evaluation(detections: found, truth: truth, operatingScore: 0.75).bands[0]
        #expect((at.hits, at.falsePositives, at.recall, at.precision, at.falsePositivesPerImage) == (1, 1, 0.5, 0.5, 1))
    }

    /// A detection on an ignored face counts neither way; one just under IoU 0.5 is a false positive.
    @Test func ignoredFacesAndTheOverlapRule() throws {
        let truth = Self.list([ListedImage(name: "a.png", faces: [Self.face(0, 0, 20, 20, ignored: true), Self.face(100, 0, 30, 30)])])
        // 30x30 against 30x30 shifted by 11: IoU 19/41 < 0.5; by 10: 20/40 = 0.5, a hit.
        let miss = Self.list([ListedImage(name: "a.png", faces: [Self.face(0, 0, 20, 20), Self.face(111, 0, 30, 30)])])
        let hit = Self.list([ListedImage(name: "a.png", faces: [Self.face(110, 0, 30, 30)])])
        let missed = try Evaluation(detections: miss, truth: truth).bands[0]
        #expect((missed.faces, missed.hits, missed.falsePositives) == (1, 0, 1))
        let found = try Evaluation(detections: hit, truth: truth).bands[0]
        #expect((found.hits, found.falsePositives, found.recall) == (1, 0, 1))
    }

    /// A band counts its own faces; a detection matched outside it, or unmatched and outside it, is ignored.
    @Test func heightBands() throws {
        let truth = Self.list([ListedImage(name: "a", faces: [Self.face(0, 0, 10, 10), Self.face(100, 100, 50, 50)])])
        let found = Self.list([ListedImage(name: "a", faces: [
            Self.face(0, 0, 10, 10, score: 0.9), Self.face(100, 100, 50, 50, score: 0.8), Self.face(300, 300, 12, 12, score: 0.5),
        ])])
        let bands = try Evaluation(detections: found, truth: truth).bands
        let small = try #require(bands.first { $0.band.name == "under 16 px" })
        let middle = try #require(bands.first { $0.band.name == "32-64 px" })
        #expect((small.faces, small.hits, small.falsePositives) == (1, 1, 1))
        #expect((middle.faces, middle.hits, middle.falsePositives) == (1, 1, 0))
        #expect(try #require(bands.first { $0.band.name == "16-32 px" }).averagePrecision.isNaN)
    }

    /// WIDER's text: a face line of zeros for an image without faces; `invalid` faces are ignored;
    /// five numbers are a detection with its score.
    @Test func widerText() throws {
        let text = "0--Parade/a.jpg\n2\n10 20 30 40 0 0 0 0 0 0\n1 2 3 4 0 0 0 1 0 0\n0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0\nc\n1\n5 6 7 8 0.75\n"
        let images = try FaceList.parseWider("gt.txt", text: text)
        #expect(images.map(\.name) == ["0--Parade/a.jpg", "0--Parade/b.jpg", "c"])
        #expect(images[0].faces == [Self.face(10, 20, 30, 40), Self.face(1, 2, 3, 4, ignored: true)])
        #expect(images[1].faces.isEmpty)
        #expect(images[2].faces == [Self.face(5, 6, 7, 8, score: 0.75)])
        #expect(throws: EvaluationInputError.self) { try FaceList.parseWider("gt.txt", text: "a.jpg\n2\n1 2 3 4\n") }
        do {
            _ = try FaceList.parseWider("gt.txt", text: "a.jpg\nmany\n")
        } catch {
            #expect(error.description == "gt.txt line 2: expected the number of faces of a.jpg: check that it is WIDER FACE's format")
        }
    }

    /// Names pair by their last path components, extensions aside; a name that is no image of the
    /// ground truth, or a run missing some of its images, is refused, naming them.
    @Test func imagePairing() throws {
        let truth = FaceList(path: "gt.txt", format: .wider, images: [
            ListedImage(name: "0--Parade/a.jpg", faces: []), ListedImage(name: "1--Handshaking/a.jpg", faces: []),
            ListedImage(name: "1--Handshaking/b.jpg", faces: []),
        ], listsEveryImage: true)
        let pairing = try ImagePairing(truth: truth)
        #expect(try pairing.image(named: "/data/WIDER_val/images/1--Handshaking/a.jpg").get() == 1)
        #expect(try pairing.image(named: "b").get() == 2)
        #expect(throws: EvaluationInputError.Pairing.ambiguous) { try pairing.image(named: "a.png").get() }
        #expect(throws: EvaluationInputError.Pairing.unknown) { try pairing.image(named: "z.jpg").get() }
        let partial = FaceList(path: "run.jsonl", format: .jsonl, images: [ListedImage(name: "0--Parade/a.jpg", faces: [])],
                               listsEveryImage: true)
        do {
            _ = try pairing.detectionsByImage(partial)
            Issue.record("a run missing images was accepted")
        } catch {
            #expect(error.description.hasPrefix("run.jsonl: has no record of 2 of the ground truth's 3 images, the first: 1--Handshaking/a.jpg"))
        }
    }

    /// A video's frames are images of their own; an exact name wins over endings; an image given
    /// twice is refused; a WIDER detection file's count of 0 has no line of zeros after it; CRLF lines.
    @Test func videoFramesExactNamesAndDuplicates() throws {
        let truth = Self.list([
            ListedImage(name: "clips/v.mp4", faces: []), ListedImage(name: "clips/v.mp4#1", faces: []),
            ListedImage(name: "x.jpg", faces: []), ListedImage(name: "a/x.jpg", faces: []),
        ])
        let pairing = try ImagePairing(truth: truth)
        #expect(try pairing.image(named: "/home/me/clips/v.mp4#1").get() == 1)
        #expect(try pairing.image(named: "v.mp4").get() == 0)
        #expect(try pairing.image(named: "x.jpg").get() == 2)
        #expect(try pairing.image(named: "/data/a/x.jpg").get() == 3)
        #expect(try pairing.image(named: "other/x.jpg").get() == 2)
        // Neither name ends the other: different folders, different images.
        let folders = try ImagePairing(truth: Self.list([ListedImage(name: "set/y.jpg", faces: [])]))
        #expect(throws: EvaluationInputError.Pairing.unknown) { try folders.image(named: "other/y.jpg").get() }
        let twice = Self.list([ListedImage(name: "x.jpg", faces: []), ListedImage(name: "./x.jpg", faces: [])], everyImage: false)
        #expect(throws: EvaluationInputError.self) { try pairing.detectionsByImage(twice) }
        let images = try FaceList.parseWider("run.txt", text: "a\r\n0\r\nb\r\n1\r\n1 2 3 4 0.5\r\n")
        #expect(images.map(\.name) == ["a", "b"])
        #expect(images[1].faces == [Self.face(1, 2, 3, 4, score: 0.5)])
    }

    /// A name of 40,000 path components pairs in one pass over it (keying every trailing run of it took
    /// memory and time with the square of its length: 3.2 GB for 40 KB), either side.
    @Test func longNamesPairInOnePass() throws {
        let long = String(repeating: "a/", count: 40_000) + "x.jpg"
        let pairing = try ImagePairing(truth: Self.list([ListedImage(name: long, faces: []), ListedImage(name: "b/x.jpg", faces: [])]))
        #expect(try pairing.image(named: "/data/" + long).get() == 0)
        #expect(try pairing.image(named: "a/a/x.png").get() == 0)
        #expect(try pairing.image(named: String(repeating: "c/", count: 40_000) + "b/x.jpg").get() == 1)
        #expect(throws: EvaluationInputError.Pairing.unknown) { try pairing.image(named: String(repeating: "c/", count: 40_000) + "x.jpg").get() }
    }

    /// A ground truth naming an image twice (COCO with two ids for one file) is refused when read,
    /// rather than every run being refused later for lacking the second.
    @Test func aGroundTruthNamingAnImageTwiceIsRefused() {
        let truth = FaceList(path: "gt.json", format: .coco, images: [
            ListedImage(name: "a.jpg", faces: []), ListedImage(name: "b.jpg", faces: []), ListedImage(name: "a.jpg", faces: []),
        ], listsEveryImage: true)
        #expect {
            try ImagePairing(truth: truth)
        } throws: { error in
            (error as? EvaluationInputError)?.description == "gt.json: names a.jpg twice, as its images 1 and 3: give each image once"
        }
    }

    /// Lines end at LF or CRLF only: a name holding U+2028 or a lone CR, which facecam writes as it
    /// is in WIDER files (and escaped in JSON), is read back whole.
    @Test func namesWithOtherLineBreaksAreReadWhole() throws {
        #expect(jsonString("a\u{2028}b\u{85}\u{7f}\u{1}") == "\"a\\u2028b\\u0085\\u007f\\u0001\"")
        let wider = try FaceList.parseWider("run.txt", text: "a\u{2028}b.jpg\n1\n1 2 3 4 0.5\nc\rd.jpg\r\n0\r\n")
        #expect(wider.map(\.name) == ["a\u{2028}b.jpg", "c\rd.jpg"])
        let lines = try FaceList.loadJSONLines("run.jsonl", text: """
            {"source":"a\u{2028}b.jpg","frame":0,"faces":[]}
            {"source":"c.jpg","frame":0,"faces":[]}

            """)
        #expect(lines.images.map(\.name) == ["a\u{2028}b.jpg", "c.jpg"])
    }

    /// Names from the files reach the terminal escaped: an escape sequence that would set the window's
    /// title, and a NUL, are shown as bytes.
    @Test func namesInMessagesAreEscaped() {
        let error = EvaluationInputError(path: "gt.json", place: "images[0]", reason: "a\u{1b}]0;owned\u{7}b\u{0}.jpg is not an image")
        #expect(error.description == "gt.json images[0]: a\\x1B]0;owned\\x07b\\x00.jpg is not an image")
    }

    /// Every reader refuses a score that is no finite number and a box of negative size, as WIDER's
    /// and COCO's do: VOC, CVAT and Label Studio accepted them (the faces then vanished silently).
    @Test func scoresAndSizesAreCheckedTheSameWayInEveryFormat() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let voc = directory.appendingPathComponent("a.xml").path
        try Data("""
            <annotation><filename>a.jpg</filename><object><name>face</name><score>inf</score>
            <bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object></annotation>
            """.utf8).write(to: URL(fileURLWithPath: voc))
        #expect {
            try FaceList.loadVOC(FilePath(directory.path), files: [FilePath(voc)])
        } throws: { ($0 as? EvaluationInputError)?.description == "\(voc) object 1: the score inf is not a finite number" }
        let cvat = """
            <annotations><image id="0" name="a.jpg" width="10" height="10"><box label="face" xtl="1" ytl="1" xbr="5" ybr="5">\
            <attribute name="score">nan</attribute></box></image></annotations>
            """
        #expect {
            try FaceList.loadCVAT("gt.xml", text: cvat)
        } throws: { ($0 as? EvaluationInputError)?.description == "gt.xml image a.jpg: the score nan is not a finite number" }
        let task = try JSONValue.parse(Substring("""
            {"data": {"image": "a.jpg"}, "annotations": [{"result": [{"type": "rectanglelabels", "original_width": 100,
             "original_height": 100, "value": {"x": 50, "y": 50, "width": -10, "height": 20, "rectanglelabels": ["face"]}}]}]}
            """))
        #expect {
            try FaceList.loadLabelStudio("ls.json", [task])
        } throws: { ($0 as? EvaluationInputError)?.description.contains("the sizes not negative") == true }
    }

    /// COCO's crowds are ignored; facecam's JSON Lines give preview boxes and name a video's frames.
    @Test func cocoAndJSONLines() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let coco = directory.appendingPathComponent("gt.json")
        try Data("""
            {"images":[{"id":7,"file_name":"x/b.jpg"},{"id":3,"file_name":"x/a.jpg"}],
             "annotations":[{"image_id":7,"bbox":[1,2,3,4]},{"image_id":7,"bbox":[5,6,7,8],"iscrowd":1}]}
            """.utf8).write(to: coco)
        let truth = try FaceList.load(FilePath(coco.path))
        #expect(truth.format == .coco)
        #expect(truth.images.map(\.name) == ["x/a.jpg", "x/b.jpg"])
        #expect(truth.images[1].faces == [Self.face(1, 2, 3, 4), Self.face(5, 6, 7, 8, ignored: true)])
        let lines = directory.appendingPathComponent("run.jsonl")
        try Data("""
            {"source":"v.mp4","frame":0,"time":0,"faces":[{"box":[1,2,3,4],"preview":[0.5,1,1.5,2],"score":0.5}]}
            {"event":"enter","id":1,"source":"v.mp4","frame":1,"time":0.04}
            {"source":"v.mp4","frame":1,"time":0.04,"faces":[]}

            """.utf8).write(to: lines)
        let run = try FaceList.load(FilePath(lines.path))
        #expect(run.images.map(\.name) == ["v.mp4", "v.mp4#1"])
        #expect(run.images[0].faces == [Self.face(0.5, 1, 1.5, 2, score: 0.5)])
        try Data("{\"source\":\"a\",\"faces\":[]}\nnot json\n".utf8).write(to: lines)
        do {
            _ = try FaceList.load(FilePath(lines.path))
            Issue.record("a damaged line was accepted")
        } catch {
            #expect(error.description == "\(lines.path) line 2: not a JSON object: check that the file is facecam's JSON Lines")
        }
    }

    /// eval's JSON reader, against values worked out by hand: escapes, surrogate pairs, numbers in
    /// JSON's grammar only, members in order, and a place for each error.
    @Test func jsonReaderReadsWhatJSONAllows() throws {
        let value = try JSONValue.parse(Substring(#" {"a": [1, -2.5e1, 0.125, true, null], "b": "x\"\u00e9\ud83d\ude00\n\ud800!", "a": {}} "#))
        #expect(value.members?.map(\.key) == ["a", "b", "a"])
        #expect(value["a"]?.members?.isEmpty == true)
        let list = try #require(value.members?.first?.value.array)
        #expect(list.map(\.number) == [1, -25, 0.125, 1, nil])
        #expect(value["b"]?.string == "x\"é😀\n\u{FFFD}!")
        #expect(try JSONValue.parse(Substring("1e400")).number == .infinity)
        #expect(try JSONValue.parse(Substring(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))).array?.count == 1)
        for (text, line, column, reason) in [
            ("[1,\n 01]", 2, 3, "expected , or ] in a list"), ("-", 1, 2, "a number needs digits"), ("1.", 1, 3, "a number needs digits after its point"),
            ("[nan]", 1, 2, "unexpected 'n'"), ("0x10", 1, 2, "text after the JSON value"), ("{\"a\" 1}", 1, 6, "expected : after a key"),
            ("\"a\tb\"", 1, 3, "a control character (byte 0x09) inside a string: it must be escaped"), ("\"\\x\"", 1, 3, "unknown escape \\'x'"),
            ("[1, 2", 1, 6, "the text ends inside a list"), ("", 1, 1, "the text ends where a value should be"),
            (String(repeating: "[", count: 100_000), 1, 513, "nested more than 512 deep"),
        ] {
            do {
                _ = try JSONValue.parse(Substring(text))
                Issue.record("\(text.prefix(20)) was read")
            } catch {
                #expect(error.line == line && error.column == column && error.reason == reason, "\(text.prefix(20)): \(error.description)")
            }
        }
    }

    /// The XML reader eval uses for VOC and CVAT: markup skipped, entities decoded, attributes in
    /// either quote; a broken file names the line where reading failed.
    @Test func xmlReaderReadsDatasetFiles() throws {
        let root = try XMLElementNode.parse(
            "<?xml version='1.0'?>\n<!-- a comment -->\n<annotation a=\"x &amp; y\" b='2'>\n <filename>a&lt;b&#x41;&#66;.jpg</filename>"
                + "<empty/><!-- inside --><object><name> face </name><note>a &amp; <![CDATA[<b> & c]]></note></object>\n</annotation>\n")
        #expect(root.name == "annotation" && root.attributes == ["a": "x & y", "b": "2"])
        #expect(root.value("filename") == "a<bAB.jpg" && root.child("empty") != nil && root.child("object")?.value("name") == "face")
        #expect(root.child("object")?.value("note") == "a & <b> & c")
        for (text, line, reason) in [
            ("<a>\n<b>\n</a>", 3, "</a> closes <b>"), ("<a x=1/>", 1, "attribute x's value is not quoted"),
            ("<a>&nope;</a>", 1, "unknown entity &nope;"), ("<a></a>\n<b/>", 2, "text after the root element"),
            (String(repeating: "<a>", count: 100_000), 1, "elements nested more than 64 deep"),
        ] {
            do {
                _ = try XMLElementNode.parse(text)
                Issue.record("\(text) was read")
            } catch {
                #expect(error.line == line && error.reason == reason, "\(text): line \(error.line), \(error.reason)")
            }
        }
    }
}
