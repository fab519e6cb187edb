import Testing
@testable import FaceCamCore

struct FaceTrackerTests {
    static func frame(_ boxes: [PixelRect], source: String = "clip", index: Int) -> FrameResult {
        FrameResult(
            source: source, frame: index, time: Double(index) / 30, size: PixelSize(width: 640, height: 480),
            previewSize: PixelSize(width: 640, height: 480), faces: boxes.map { Face(box: $0, preview: $0.rect) })
    }

    static func box(_ x: Int, _ y: Int = 100, size: Int = 80) -> PixelRect {
        PixelRect(x: x, y: y, width: size, height: size)
    }

    /// Tracks one frame; its faces' ids, and the events.
    @discardableResult
    func track(_ tracker: FaceTracker, _ index: Int, _ boxes: [PixelRect], source: String = "clip") -> [Int?] {
        var result = Self.frame(boxes, source: source, index: index)
        tracker.track(&result)
        return result.faces.map(\.id)
    }

    @Test func movingFacesKeepTheirIdsAndNewcomersGetTheNext() {
        let tracker = FaceTracker()
        #expect(track(tracker, 0, [Self.box(100), Self.box(400)]) == [1, 2])
        #expect(track(tracker, 1, [Self.box(110), Self.box(390)]) == [1, 2])
        #expect(track(tracker, 2, [Self.box(400 - 20), Self.box(120), Self.box(250, 300)]) == [2, 1, 3])
    }

    /// Redaction's masks for missed faces: a face seen at x 100 then 110 moves 10 pixels a frame, so
    /// two frames after its last sighting it should be at 130; past the grace it is no longer predicted.
    @Test func missedFacesArePredictedWhereTheirSpeedTakesThem() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 3))
        track(tracker, 0, [Self.box(100)])
        track(tracker, 1, [Self.box(110)])
        #expect(tracker.predictions(at: 1) == [], "detected in that frame")
        // A frame skipped by --every is asked without tracking.
        #expect(tracker.predictions(at: 2).map(\.box) == [Rect(x: 120, y: 100, width: 80, height: 80)])
        track(tracker, 3, [])
        #expect(tracker.predictions(at: 3).map(\.box) == [Rect(x: 130, y: 100, width: 80, height: 80)])
        #expect(tracker.predictions(at: 4) == [
            FaceTracker.Prediction(id: 1, box: Rect(x: 140, y: 100, width: 80, height: 80), seenOnce: false),
        ])
        #expect(tracker.predictions(at: 5) == [], "four frames since it was seen, past the grace of 3")
    }

    /// A face detected at one frame alone is predicted where it was (no speed yet), said to be seen once, until
    /// it is found again; its track is open until a frame past the grace is tracked.
    @Test func aTrackSeenOnceSaysSo() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 3))
        track(tracker, 0, [Self.box(100), Self.box(400)])
        track(tracker, 1, [Self.box(400)])
        #expect(tracker.predictions(at: 2) == [
            FaceTracker.Prediction(id: 1, box: Rect(x: 100, y: 100, width: 80, height: 80), seenOnce: true),
            FaceTracker.Prediction(id: 2, box: Rect(x: 400, y: 100, width: 80, height: 80), seenOnce: false),
        ])
        #expect(track(tracker, 2, [Self.box(100)]) == [1])
        #expect(tracker.predictions(at: 3).map(\.seenOnce) == [false, false])
        track(tracker, 3, [Self.box(100)])
        #expect(tracker.openTracks == [1, 2])
        // Track 2, last seen at 1, ends at frame 5: more than 3 frames since.
        track(tracker, 5, [Self.box(100)])
        #expect(tracker.openTracks == [1])
    }

    @Test func theGraceIsCountedInSourceFrames() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 6))
        #expect(track(tracker, 0, [Self.box(100)]) == [1])
        // Missed at frame 6: six frames since it was seen, within the grace.
        #expect(track(tracker, 6, []) == [])
        #expect(track(tracker, 12, [Self.box(102)]) == [1])
        // Missed at frame 19: seven frames, past the grace, whatever the number of processed frames.
        #expect(track(tracker, 19, []) == [])
        #expect(track(tracker, 20, [Self.box(102)]) == [2])
    }

    @Test func predictionsStretchOverTheSourceFramesThatElapsed() {
        // An 80-pixel face moving 15 pixels a frame, sampled every 10 frames: 150 pixels between
        // samples, nearly twice its size, and no overlap between consecutive boxes.
        let tracker = FaceTracker()
        for (sample, frame) in stride(from: 0, through: 60, by: 10).enumerated() {
            #expect(track(tracker, frame, [Self.box(20 + 15 * frame)]) == [1], "sample \(sample)")
        }
        // Had the frames been counted as processed ones, 150 pixels in one frame would have been too far.
        let counting = FaceTracker()
        track(counting, 0, [Self.box(20)])
        #expect(track(counting, 1, [Self.box(170)]) == [2])
    }

    @Test func aMissedFaceIsSoughtWhereItsMotionLeadsIt() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 3))
        track(tracker, 0, [Self.box(100)])
        track(tracker, 1, [Self.box(130)])  // 30 pixels a frame
        track(tracker, 2, [])
        track(tracker, 3, [])
        // Three frames on, at 220: 90 pixels from its last box, no overlap with it, but where it was heading.
        #expect(track(tracker, 4, [Self.box(220)]) == [1])
    }

    @Test func passingFacesAreAssignedOptimallyNotGreedily() {
        // Two faces 90 pixels apart vertically move towards each other. At frame 10 a greedy matcher
        // would take the closest pair first (track 2 and the face at 200,150, 40 pixels from its
        // prediction), leaving track 1 nothing within its gate (68 pixels); the assignment keeps both.
        let tracker = FaceTracker()
        #expect(track(tracker, 0, [Self.box(100, 100), Self.box(300, 190)]) == [1, 2])
        #expect(track(tracker, 5, [Self.box(150, 100), Self.box(250, 190)]) == [1, 2])
        // Predicted: 1 at (200, 100), 2 at (200, 190). Found: one at (200, 150), one at (200, 240).
        #expect(track(tracker, 10, [Self.box(200, 240), Self.box(200, 150)]) == [2, 1])
    }

    @Test func aFarAwayFaceOrOneOfAnotherSizeIsANewcomer() {
        let tracker = FaceTracker()
        track(tracker, 0, [Self.box(100)])
        // 200 pixels in one frame: 2.5 sizes, beyond the 0.6-size gate of a face seen once.
        #expect(track(tracker, 1, [Self.box(300)]) == [2])
        let sizes = FaceTracker()
        track(sizes, 0, [Self.box(100, size: 80)])
        // Same place, twice the size.
        #expect(track(sizes, 1, [Self.box(60, 60, size: 160)]) == [2])
    }

    @Test func eventsSayWhenAFaceEntersAndLeaves() {
        let tracker = FaceTracker(settings: TrackerSettings(grace: 2))
        var first = Self.frame([Self.box(100)], index: 3)
        let entered = tracker.track(&first)
        #expect(entered.map(\.kind) == [.enter])
        #expect(entered.first.map { ($0.id, $0.frame, $0.firstFrame) } ?? (0, 0, 0) == (1, 3, 3))
        var seen = Self.frame([Self.box(104)], index: 4)
        #expect(tracker.track(&seen).isEmpty)
        var gone = Self.frame([], index: 7)
        let left = tracker.track(&gone)
        #expect(left.map(\.kind) == [.leave])
        let leave = left.first
        #expect(leave?.frame == 7 && leave?.firstFrame == 3 && leave?.lastFrame == 4)
        // At the end of a source, the tracks still open leave at the last frame processed.
        var again = Self.frame([Self.box(300)], index: 8)
        tracker.track(&again)
        let ended = tracker.finish()
        #expect(ended.map(\.kind) == [.leave] && ended.first?.id == 2 && ended.first?.frame == 8)
    }

    @Test func anotherSourceStartsAfreshAndEndsThePreviousTracks() {
        let tracker = FaceTracker()
        #expect(track(tracker, 0, [Self.box(100), Self.box(300)], source: "a") == [1, 2])
        var next = Self.frame([Self.box(100)], source: "b", index: 0)
        let events = tracker.track(&next)
        #expect(next.faces.map(\.id) == [1])
        #expect(events.map { "\($0.kind) \($0.source) \($0.id)" } == ["leave a 1", "leave a 2", "enter b 1"])
    }

    @Test func smoothingKeepsHalfOfTheLastBox() {
        let tracker = FaceTracker(settings: TrackerSettings(smoothing: 0.5))
        var first = Self.frame([PixelRect(x: 100, y: 100, width: 80, height: 80)], index: 0)
        tracker.track(&first)
        var second = Self.frame([PixelRect(x: 110, y: 96, width: 90, height: 90)], index: 1)
        tracker.track(&second)
        // Halfway: x (100 + 110) / 2 = 105, y 98, size 85.
        #expect(second.faces[0].box == PixelRect(x: 105, y: 98, width: 85, height: 85))
        #expect(second.faces[0].preview == Rect(x: 105, y: 98, width: 85, height: 85))
        #expect(second.faces[0].id == 1)
    }
}

struct OptimalAssignmentTests {
    @Test func theLeastTotalCostWinsOverTheCheapestFirstPair() {
        // Greedy takes (0,0) at 1, then (1,1) at 10: 11. Optimal: (0,1) + (1,0) = 2 + 3 = 5.
        #expect(optimalAssignment([[1, 2], [3, 10]]) == [1, 0])
    }

    @Test func forbiddenPairsAreNeverTaken() {
        #expect(optimalAssignment([[nil, 1], [nil, 2]]) == [1, nil])
        #expect(optimalAssignment([[nil], [nil]]) == [nil, nil])
    }

    @Test func moreAllowedPairsBeatALowerCost() {
        // Pairing row 0 with column 0 (cost 0) would leave row 1 nothing; 5 + 5 pairs both.
        #expect(optimalAssignment([[0, 5], [5, nil]]) == [1, 0])
    }

    @Test func rectangularMatricesEitherWay() {
        #expect(optimalAssignment([[4, 1, 3]]) == [1])
        #expect(optimalAssignment([[4], [1], [3]]) == [nil, 0, nil])
        #expect(optimalAssignment([]) == [])
    }
}
