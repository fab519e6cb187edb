import Testing
@testable import FaceCam

struct ResultFormatTests {
    static let result = FrameResult(
        source: "dir/a \"b\",c.jpg", frame: 3, time: 0.125, size: PixelSize(width: 640, height: 480),
        previewSize: PixelSize(width: 320, height: 240),
        faces: [
            Face(box: PixelRect(x: 10, y: 20, width: 30, height: 30), preview: Rect(x: 5, y: 10, width: 15, height: 15)),
            Face(box: PixelRect(x: 100, y: 21, width: 33, height: 33), preview: Rect(x: 50, y: 10.5, width: 16.5, height: 1.0 / 3), id: 7),
        ])

    @Test func jsonLines() {
        #expect(ResultFormat.jsonl.render(Self.result) == """
            {"source":"dir/a \\"b\\",c.jpg","frame":3,"time":0.125,"size":[640,480],"preview_size":[320,240],\
            "faces":[{"box":[10,20,30,30],"preview":[5,10,15,15]},{"id":7,"box":[100,21,33,33],"preview":[50,10.5,16.5,0.333333]}]}

            """)
        #expect(ResultFormat.jsonl.header == nil)
    }

    @Test func csvQuotesFieldsAndHasAHeader() {
        #expect(ResultFormat.csv.header == "source,frame,time,face,box_x,box_y,box_width,box_height,preview_x,preview_y,preview_width,preview_height,id\n")
        #expect(ResultFormat.csv.render(Self.result) == """
            "dir/a ""b"",c.jpg",3,0.125,0,10,20,30,30,5,10,15,15,
            "dir/a ""b"",c.jpg",3,0.125,1,100,21,33,33,50,10.5,16.5,0.333333,7

            """)
        var empty = Self.result
        empty.faces = []
        #expect(ResultFormat.csv.render(empty) == "")
    }

    @Test func text() {
        #expect(ResultFormat.text.render(Self.result) == """
            dir/a "b",c.jpg frame 3 at 0.125 s: 640x480, 2 faces
              face 1: box 30x30 at 10,20; preview 15x15 at 5,10
              face 2 (id 7): box 33x33 at 100,21; preview 16.5x0.333333 at 50,10.5

            """)
    }

    @Test func jsonEscapesControlCharacters() {
        #expect(jsonString("a\u{1}b\n\t\\") == "\"a\\u0001b\\n\\t\\\\\"")
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
}
