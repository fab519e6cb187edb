import Testing
@testable import FaceCam

struct FaceTrackerTests {
    static func frame(_ boxes: [PixelRect], source: String = "clip", index: Int = 0) -> FrameResult {
        FrameResult(
            source: source, frame: index, time: 0, size: PixelSize(width: 640, height: 480),
            previewSize: PixelSize(width: 640, height: 480), faces: boxes.map { Face(box: $0, preview: $0.rect) })
    }

    static func box(_ x: Int, _ y: Int = 100, size: Int = 80) -> PixelRect {
        PixelRect(x: x, y: y, width: size, height: size)
    }

    func ids(_ tracker: FaceTracker, _ boxes: [PixelRect], source: String = "clip") -> [Int?] {
        var result = Self.frame(boxes, source: source)
        tracker.track(&result)
        return result.faces.map(\.id)
    }

    @Test func movingFacesKeepTheirIdsAndNewcomersGetTheNext() {
        let tracker = FaceTracker()
        #expect(ids(tracker, [Self.box(100), Self.box(400)]) == [1, 2])
        #expect(ids(tracker, [Self.box(110), Self.box(390)]) == [1, 2])
        #expect(ids(tracker, [Self.box(400 - 20), Self.box(120), Self.box(250, 300)]) == [2, 1, 3])
    }

    @Test func aShortGapKeepsTheIdALongOneEndsIt() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 2))
        #expect(ids(tracker, [Self.box(100)]) == [1])
        #expect(ids(tracker, []) == [])
        #expect(ids(tracker, []) == [])
        // Missed twice (the grace): still the same face, found where its motion (none) predicts.
        #expect(ids(tracker, [Self.box(102)]) == [1])
        for _ in 0..<3 { _ = ids(tracker, []) }
        // Missed three times: the track ended.
        #expect(ids(tracker, [Self.box(102)]) == [2])
    }

    @Test func aMissedFaceIsSoughtWhereItsMotionLeadsIt() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 3))
        _ = ids(tracker, [Self.box(100)])
        _ = ids(tracker, [Self.box(130)])  // 30 pixels a frame
        _ = ids(tracker, [])
        _ = ids(tracker, [])
        // Three frames on, at 220: 90 pixels from its last box, no overlap with it, but where it was heading.
        #expect(ids(tracker, [Self.box(220)]) == [1])
    }

    @Test func anotherSourceStartsAfresh() {
        let tracker = FaceTracker()
        #expect(ids(tracker, [Self.box(100), Self.box(300)], source: "a") == [1, 2])
        #expect(ids(tracker, [Self.box(100)], source: "b") == [1])
    }

    @Test func smoothingKeepsHalfOfTheLastBox() {
        let tracker = FaceTracker(settings: TrackerSettings(smoothing: 0.5))
        var first = Self.frame([PixelRect(x: 100, y: 100, width: 80, height: 80)])
        tracker.track(&first)
        var second = Self.frame([PixelRect(x: 110, y: 96, width: 90, height: 90)])
        tracker.track(&second)
        // Halfway: x (100 + 110) / 2 = 105, y 98, size 85.
        #expect(second.faces[0].box == PixelRect(x: 105, y: 98, width: 85, height: 85))
        #expect(second.faces[0].preview == Rect(x: 105, y: 98, width: 85, height: 85))
        #expect(second.faces[0].id == 1)
    }
}
