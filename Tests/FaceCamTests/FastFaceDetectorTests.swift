import Testing
@testable import FaceCam

/// Fast mode's search of what changed: a face that appears between full searches.
struct FastFaceDetectorTests {
    /// A 640x480 mid-grey frame with `crops` of fixture photographs pasted at their places.
    private func frame(_ crops: [(image: Frame, from: PixelRect, at: (x: Int, y: Int))]) -> Frame {
        var frame = Frame(width: 640, height: 480)
        for y in 0..<480 { for x in 0..<640 { frame.setPixel(x: x, y: y, to: BGRA(blue: 128, green: 128, red: 128)) } }
        for crop in crops {
            for y in 0..<crop.from.height { for x in 0..<crop.from.width {
                frame.setPixel(x: crop.at.x + x, y: crop.at.y + y, to: crop.image.pixel(x: crop.from.x + x, y: crop.from.y + y))
            } }
        }
        return frame
    }

    @Test func aFaceThatAppearsBetweenFullSearchesIsFoundInTheFrameItAppears() throws {
        // The faces OpenCV finds in the fixtures (Fixtures/expectations.jsonl), with half their size around them.
        let astronaut = (image: try ImageFile.load(fixture("images/astronaut.png")).frame, from: PixelRect(x: 132, y: 23, width: 184, height: 184),
                         at: (x: 40, y: 150))
        let hopper = (image: try ImageFile.load(fixture("images/grace_hopper.jpg")).frame, from: PixelRect(x: 100, y: 35, width: 328, height: 328),
                      at: (x: 300, y: 76))
        let before = frame([astronaut]), after = frame([astronaut, hopper])
        let geometry = try GeometrySettings().geometry(for: before.size)
        let exact = try FaceDetector(cascade: Cascade(resolving: Cascade.defaultName))
        let fast = try FastFaceDetector(
            detector: FaceDetector(cascade: Cascade(resolving: Cascade.defaultName)), settings: FastSettings(fullSearchEvery: 5))

        // Frame 0 is searched whole; frames 1 and 2 only follow the astronaut (the next full search is
        // frame 5), so Grace Hopper, who appears in frame 2, is found there by the search of what changed.
        let expected = try exact.detect(in: after, geometry: geometry).map(\.box)
        try #require(expected.count == 2)
        #expect(try fast.detect(in: before, geometry: geometry).count == 1)
        #expect(try fast.detect(in: before, geometry: geometry).count == 1)
        let found = try fast.detect(in: after, geometry: geometry).map(\.box)
        #expect(found.count == 2)
        for box in expected {
            #expect(found.contains { $0.overlap(with: box) >= 0.5 }, "\(box) not among \(found)")
        }
    }
}
