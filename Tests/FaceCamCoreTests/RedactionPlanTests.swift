import Testing
@testable import FaceCamCore

/// `RedactionPlan` on faces placed by hand, every expected box worked out from the rules: interpolation between
/// detections, the frames not searched around a face, the grace, the edges. Faces that come or go in place
/// are 20 x 20 at (190, 190) in a 400 x 400 picture, beyond the reach of its edges; those that cross an edge are in a
/// 100 x 100 one.
struct RedactionPlanTests {
    static func box(_ x: Double, _ y: Double = 40, _ width: Double = 20, _ height: Double = 20) -> Rect {
        Rect(x: x, y: y, width: width, height: height)
    }

    /// A plan of `frames` searched, each with the faces `faces` gives it.
    static func plan(
        searched frames: [Int], grace: Int = 5, extendOnce: Bool = false, picture: Int = 400,
        _ faces: (Int) -> [(Int, Rect)]
    ) -> RedactionPlan {
        var plan = RedactionPlan(
            settings: RedactionPlan.Settings(grace: grace, maximumExtension: 60, extendOnce: extendOnce),
            picture: PixelSize(width: picture, height: picture))
        for frame in frames {
            plan.record(frame: frame, faces: faces(frame).map { (id: $0.0, box: $0.1) })
        }
        return plan
    }

    /// The masks at frames 0 to `last`, frame by frame.
    static func masks(_ plan: RedactionPlan, through last: Int) -> [[Rect]] {
        var masks = plan.masks()
        return (0...last).map { masks.boxes(at: $0) }
    }

    /// Found at 0 and 4, 20 pixels apart: at 1, 2 and 3 the box is a quarter, a half and three quarters of the way.
    @Test func betweenTwoDetectionsTheBoxIsInterpolated() {
        let plan = Self.plan(searched: [0, 4, 8]) { frame in
            [0: [(1, Self.box(190, 190))], 4: [(1, Self.box(210, 198, 24, 28))]][frame] ?? []
        }
        let masks = Self.masks(plan, through: 4)
        #expect(masks[1] == [Self.box(195, 192, 21, 22)])
        #expect(masks[2] == [Self.box(200, 194, 22, 24)])
        #expect(masks[3] == [Self.box(205, 196, 23, 26)])
    }

    /// Found at 4 alone, searched at 0, 4 and 8: hidden at 1 to 7, the frames nobody looked at, but not at 0 and 8,
    /// where it was looked for and not found; over the grace (2) too, both ways, with `extendOnce` (--no-lookahead).
    @Test func aFaceFoundOnceIsHiddenOverTheFramesNotSearchedAroundIt() {
        let face = Self.box(190, 190)
        let once = Self.plan(searched: [0, 4, 8]) { $0 == 4 ? [(1, face)] : [] }
        #expect(Self.masks(once, through: 9).map(\.count) == [0, 1, 1, 1, 1, 1, 1, 1, 0, 0])
        #expect(Self.masks(once, through: 9)[2] == [face])
        let extended = Self.plan(searched: [0, 4, 8], grace: 2, extendOnce: true) { $0 == 4 ? [(1, face)] : [] }
        #expect(Self.masks(extended, through: 10).map(\.count) == [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0])
        // Every frame searched: at its own frame alone, as the lookahead of a video read once.
        let everyFrame = Self.plan(searched: Array(0...9)) { $0 == 3 ? [(1, face)] : [] }
        #expect(Self.masks(everyFrame, through: 9).map(\.count) == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
    }

    /// A face seen at 8, 12 and 16 standing still came or went in place: hidden over the 3 frames not searched on each
    /// side and the grace (2) beyond them, from 3 to 21.
    @Test func aFaceThatAppearedInPlaceIsHiddenOverTheGraceBeyondTheFramesNotSearched() {
        let plan = Self.plan(searched: Array(stride(from: 0, through: 28, by: 4)), grace: 2) { frame in
            (8...16).contains(frame) ? [(1, Self.box(190, 190))] : []
        }
        let covered = Self.masks(plan, through: 28).enumerated().filter { !$0.element.isEmpty }.map(\.offset)
        #expect(covered == Array(3...21))
    }

    /// A face 20 wide moving right 5 pixels a frame, found first at 8 (x 20): before it, its box moves back at that speed
    /// to the left edge, which it crossed whole at 0 (x -20); at 1 to 7 it is at x -15 to 15. Over the 3 frames not
    /// searched before 8, the edge being within its reach (half its size a frame for 4 frames: 40), the strip from its box
    /// at 8 to beyond the edge (x -20 to 40) is hidden too: it may have come in faster than its detections say.
    @Test func aFaceComingInThroughAnEdgeIsHiddenFromTheFrameItEntered() {
        let plan = Self.plan(searched: Array(stride(from: 0, through: 40, by: 4)), grace: 0, picture: 100) { frame in
            (8...16).contains(frame) ? [(1, Self.box(Double(-20 + 5 * frame)))] : []
        }
        let masks = Self.masks(plan, through: 8)
        #expect(masks[0].isEmpty)
        for frame in 1...4 { #expect(masks[frame] == [Self.box(Double(-20 + 5 * frame))], "frame \(frame)") }
        for frame in 5...7 { #expect(masks[frame] == [Self.box(Double(-20 + 5 * frame)), Self.box(-20, 40, 60)], "frame \(frame)") }
    }

    /// The same face going on out through the right edge: after its last detection at 16 (x 60) it moves on to x 95 at 23,
    /// and is gone at 24 (x 100), 7 frames beyond the grace (0) and the 3 frames not searched.
    /// Over the 3 frames not searched after 16, the right edge being 20 away, within its reach, the strip from its box to
    /// beyond that edge (x 60 to 120) is hidden too.
    @Test func aFaceGoingOutThroughAnEdgeIsHiddenUntilItLeft() {
        let plan = Self.plan(searched: Array(stride(from: 0, through: 40, by: 4)), grace: 0, picture: 100) { frame in
            (8...16).contains(frame) ? [(1, Self.box(Double(-20 + 5 * frame)))] : []
        }
        let masks = Self.masks(plan, through: 26)
        for frame in 17...19 { #expect(masks[frame] == [Self.box(Double(-20 + 5 * frame)), Self.box(60, 40, 60)], "frame \(frame)") }
        for frame in 20...23 { #expect(masks[frame] == [Self.box(Double(-20 + 5 * frame))], "frame \(frame)") }
        #expect(masks[24].isEmpty && masks[25].isEmpty)
    }

    /// A box the right edge cuts (10 x 15 at x 90) is grown to the size the face has inside the picture (30 x 40), on
    /// the edge's side, about its own centre row.
    @Test func aBoxTheEdgeCutsIsGrownToTheFacesSize() {
        let plan = Self.plan(searched: [4, 8], picture: 100) { frame in
            [4: [(1, Self.box(90, 40, 10, 15))], 8: [(1, Self.box(50, 30, 30, 40))]][frame] ?? []
        }
        #expect(plan.faces().first?.first?.first?.box == Self.box(90, 27.5, 30, 40))
    }

    /// A track that begins, at the next search, where another ended is the same face (the tracker lets go of a face
    /// whose box grows fast at an edge): one face. One far from it, or beginning later, is another.
    @Test func aTrackThatBeginsWhereAnotherEndedIsTheSameFace() {
        let plan = Self.plan(searched: [0, 4, 8, 12, 16, 20]) { frame in
            switch frame {
            case 0, 4: [(1, Self.box(10))]
            case 8: [(2, Self.box(12)), (3, Self.box(70))]
            case 20: [(4, Self.box(12))]
            default: []
            }
        }
        #expect(plan.masks().faceCount == 3)
        #expect(plan.faces().first?.map { $0.map(\.frame) } == [[0, 4], [8]])
    }

    /// A host (100 wide at x 100, searched every 10th frame) seen until 90, a cut at 99 and a guest at x 450 from there
    /// on, within the reach of a face moving half its size a frame: two faces, not joined across the cut, and the host
    /// hidden where it was over the 8 frames not searched after 90 and the grace, the frames a join would have slid its
    /// mask towards the guest.
    @Test func noTrackIsJoinedAcrossACut() {
        var plan = RedactionPlan(
            settings: RedactionPlan.Settings(grace: 5, maximumExtension: 60), picture: PixelSize(width: 640, height: 400))
        for frame in Array(stride(from: 0, through: 90, by: 10)) + [99, 109] {
            if frame == 99 { plan.cut(at: frame) }
            plan.record(frame: frame, faces: frame < 99 ? [(id: 1, box: Self.box(100, 150, 100, 100))] : [(id: 2, box: Self.box(450, 150, 100, 100))])
        }
        var masks = plan.masks()
        #expect(masks.faceCount == 2)
        // The guest's own masks reach back before the cut (a cut bounds no mask); none lies between the two.
        let host = (91...98).map { masks.boxes(at: $0) }
        #expect(host.allSatisfy { $0.contains(Self.box(100, 150, 100, 100)) && $0.allSatisfy { $0.minX <= 100 || $0.maxX >= 550 } })
    }

    /// Joined without a cut, the same two tracks keep their own masks, and the frames between their detections (91 to
    /// 98) hide the box interpolated from one to the other too.
    @Test func joinedTracksKeepTheirOwnMasksAndHideTheWayBetween() {
        var plan = RedactionPlan(
            settings: RedactionPlan.Settings(grace: 5, maximumExtension: 60), picture: PixelSize(width: 640, height: 400))
        for frame in Array(stride(from: 0, through: 90, by: 10)) + [100, 110] {
            plan.record(frame: frame, faces: frame <= 90 ? [(id: 1, box: Self.box(100, 150, 100, 100))] : [(id: 2, box: Self.box(450, 150, 100, 100))])
        }
        var masks = plan.masks()
        #expect(masks.faceCount == 1)
        let boxes = (0...95).map { masks.boxes(at: $0) }[95]
        #expect(boxes.contains(Self.box(100, 150, 100, 100)))
        #expect(boxes.contains(Self.box(275, 150, 100, 100)))
    }

    /// A thumbnail's mean difference tells a cut (black to white) from a frame that barely changed.
    @Test func sceneCutsAreLargeChangesOfTheWholePicture() {
        var cuts = SceneCuts()
        func frame(_ grey: UInt8, bar: Int = 0) -> Frame {
            var frame = Frame(width: 64, height: 48)
            for y in 0..<48 {
                for x in 0..<64 { frame.setPixel(x: x, y: y, to: x < bar ? BGRA(blue: 255, green: 255, red: 255) : BGRA(blue: grey, green: grey, red: grey)) }
            }
            return frame
        }
        // A white bar over an eighth of the picture is a face coming in, not a new scene.
        let seen = [frame(0), frame(10), frame(10, bar: 8), frame(200)].map { cuts.isCut($0) }
        #expect(seen == [true, false, false, true])
    }
}
