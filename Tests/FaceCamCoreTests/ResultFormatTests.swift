import Foundation
import Testing
@testable import FaceCamCore

struct ResultFormatTests {
    static let result = FrameResult(
        source: "dir/a \"b\",c.jpg", frame: 3, time: 0.125, size: PixelSize(width: 640, height: 480),
        previewSize: PixelSize(width: 320, height: 240),
        faces: [
            Face(box: PixelRect(x: 10, y: 20, width: 30, height: 30), preview: Rect(x: 5, y: 10, width: 15, height: 15)),
            Face(box: PixelRect(x: 100, y: 21, width: 33, height: 33), preview: Rect(x: 50, y: 10.5, width: 16.5, height: 1.0 / 3), id: 7),
            Face(
                box: PixelRect(x: 200, y: 40, width: 40, height: 50), preview: Rect(x: 100, y: 20, width: 20, height: 25), id: 8,
                score: 0.9876,
                landmarks: FaceLandmarks([Point(x: 210, y: 55), Point(x: 230, y: 55.5), Point(x: 220, y: 65),
                                          Point(x: 212, y: 78), Point(x: 228.25, y: 78)]),
                previewLandmarks: FaceLandmarks([Point(x: 105, y: 27.5), Point(x: 115, y: 27.75), Point(x: 110, y: 32.5),
                                                 Point(x: 106, y: 39), Point(x: 114.125, y: 39)])),
        ])

    @Test func jsonLines() {
        #expect(JSONLinesFormat().render(Self.result) == """
            {"source":"dir/a \\"b\\",c.jpg","frame":3,"time":0.125,"size":[640,480],"preview_size":[320,240],\
            "faces":[{"box":[10,20,30,30],"preview":[5,10,15,15]},{"id":7,"box":[100,21,33,33],"preview":[50,10.5,16.5,0.333333]},\
            {"id":8,"box":[200,40,40,50],"preview":[100,20,20,25],"score":0.9876,\
            "landmarks":[[210,55],[230,55.5],[220,65],[212,78],[228.25,78]],\
            "preview_landmarks":[[105,27.5],[115,27.75],[110,32.5],[106,39],[114.125,39]]}]}

            """)
        #expect(JSONLinesFormat().opening.isEmpty)
    }

    @Test func csvQuotesFieldsAndHasAHeader() {
        #expect(CSVFormat(context: ExportContext()).opening == "source,frame,time,face,box_x,box_y,box_width,box_height,"
            + "preview_x,preview_y,preview_width,preview_height,id,score,right_eye_x,right_eye_y,left_eye_x,left_eye_y,"
            + "nose_x,nose_y,mouth_right_x,mouth_right_y,mouth_left_x,mouth_left_y,roll,yaw,pitch,preview_roll,preview_yaw,preview_pitch,quality,identity,distance\n")
        #expect(CSVFormat(context: ExportContext()).render(Self.result) == """
            "dir/a ""b"",c.jpg",3,0.125,0,10,20,30,30,5,10,15,15,,,,,,,,,,,,,,,,,,,,,
            "dir/a ""b"",c.jpg",3,0.125,1,100,21,33,33,50,10.5,16.5,0.333333,7,,,,,,,,,,,,,,,,,,,,
            "dir/a ""b"",c.jpg",3,0.125,2,200,40,40,50,100,20,20,25,8,0.9876,210,55,230,55.5,220,65,212,78,228.25,78,,,,,,,,,

            """)
        var empty = Self.result
        empty.faces = []
        #expect(CSVFormat(context: ExportContext()).render(empty) == "")
    }

    /// WIDER's ground-truth layout (a video frame named SOURCE#FRAME, six zero attributes) and
    /// MOTChallenge's lines (frame from 1, -1 for no id, 1 for no score), from the preview boxes.
    @Test func widerAndMOT() {
        #expect(WiderFormat(context: ExportContext()).render(Self.result) == """
            dir/a "b",c.jpg#3
            3
            5 10 15 15 0 0 0 0 0 0
            50 10.5 16.5 0.333333 0 0 0 0 0 0
            100 20 20 25 0 0 0 0 0 0

            """)
        #expect(MOTFormat(context: ExportContext()).render(Self.result) == """
            4,-1,5,10,15,15,1,-1,-1,-1
            4,7,50,10.5,16.5,0.333333,1,-1,-1,-1
            4,8,100,20,20,25,0.9876,-1,-1,-1

            """)
        var still = Self.result
        (still.frame, still.time, still.faces) = (0, 0, [])
        #expect(WiderFormat(context: ExportContext()).render(still) == "dir/a \"b\",c.jpg\n0\n0 0 0 0 0 0 0 0 0 0\n")
    }

    @Test func text() {
        #expect(TextFormat(context: ExportContext()).render(Self.result) == """
            dir/a "b",c.jpg frame 3 at 0.125 s: 640x480, 3 faces
              face 1: box 30x30 at 10,20; preview 15x15 at 5,10
              face 2 (id 7): box 33x33 at 100,21; preview 16.5x0.333333 at 50,10.5
              face 3 (id 8), score 0.99: box 40x50 at 200,40; preview 20x25 at 100,20

            """)
    }

    /// What each format says it is, which the commands' refusals follow, is what its users are told: the table in
    /// docs/reference/output-formats.md, written by hand from the formats' own specifications, row for row (a format
    /// added is checked by its row there).
    @Test func eachFormatIsWhatItsDocumentationSays() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/reference/output-formats.md")
        let lines = try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| format | extension |") })
        // The rows: from the header's rule to the blank line that ends the table.
        let rows = lines[(header + 2)...].prefix { !$0.isEmpty }
            .map { $0.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) } }
        let yes = { (holds: Bool) in holds ? "yes" : "" }
        let declared = ResultFormat.allCases.map { format in
            ["`\(format.rawValue)`", ".\(format.fileExtension)",
             format.isFolderOnly ? "a folder" : format.canWriteFolder ? "a file or a folder" : "a file", yes(format.isDocument),
             yes(format.hasEvents), (format.isOneVideo ? "one" : "any") + (format.isVideoOnly ? ", no photographs" : ""),
             yes(format.namesImages)] + [FaceDetail.poseAndQuality, .identity, .cluster, .descriptor].map { yes(format.holds($0)) }
        }
        #expect(rows.count == ResultFormat.allCases.count)
        for (row, format) in zip(rows, declared) { #expect(row == format) }
        // Each writes a stream or a folder (else ResultWriter could not write it).
        let writable = ResultFormat.allCases.filter { $0.type is any StreamFormat.Type || $0.type is any FolderFormat.Type }
        #expect(writable == ResultFormat.allCases)
        // A document holds text back until the end, so a file of it is only whole then.
        let documents = ResultFormat.allCases.filter(\.isDocument)
        #expect(documents.filter(\.isWrittenWhole) == documents)
    }

    @Test func jsonEscapesControlCharacters() {
        #expect(jsonString("a\u{1}b\n\t\\") == "\"a\\u0001b\\n\\t\\\\\"")
    }

    /// The JSON writer: members in the order given, a nil member left out where .null writes null, keys and
    /// strings escaped, numbers as given; the expected text is written by hand, and Foundation's parser reads it back.
    @Test func jsonOutputWritesCompactJSONInTheOrderGiven() throws {
        let value = JSONOutput.members([
            "b": .integer(2), "a": .decimal(0.25), "skipped": nil, "none": .null,
            "list": .array([true, "x\"y", .array([]), .members([:])]), "k\u{1}": .number("1.500"),
        ])
        #expect(value.text == #"{"b":2,"a":0.25,"none":null,"list":[true,"x\"y",[],{}],"k\u0001":1.500}"#)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any])
        #expect(parsed.keys.sorted() == ["a", "b", "k\u{1}", "list", "none"])
    }

    @Test func decimalsArePlain() {
        #expect(decimal(0) == "0")
        #expect(decimal(-0.0) == "0")
        #expect(decimal(12) == "12")
        #expect(decimal(-3.5) == "-3.5")
        #expect(decimal(1e-7) == "0")
        #expect(decimal(-1e-7) == "0")
        #expect(decimal(1234567.25) == "1234567.25")
        #expect(decimal(2.0 / 3) == "0.666667")
    }

    /// A name a hand-made gallery holds, shown on one line: no escape sequence, line break or direction mark gets through.
    @Test func namesAreShownOnOneLine() {
        #expect(shownOnOneLine("Ada\u{1B}[2J\nFake: 9 photographs") == "Ada\\x1B[2J\\x0AFake: 9 photographs")
        #expect(shownOnOneLine("\u{202E}evE\u{200B}\u{85}") == "\\xE2\\x80\\xAEevE\\xE2\\x80\\x8B\\xC2\\x85")
        // Joiners (Persian, emoji sequences) and accents stay as they are.
        #expect(shownOnOneLine("Zoë \u{200C}\u{1F469}\u{200D}\u{1F52C}") == "Zoë \u{200C}\u{1F469}\u{200D}\u{1F52C}")
    }
}
