import Foundation
import Testing

/// Ground truth from the clips' generator (Fixtures/video/tracks.json): per frame, where each
/// face patch was drawn; a face belongs to the patch holding its box's centre.
func patchTruth(_ clip: String) throws -> [[String: [Int]]] {
    let data = try Data(contentsOf: repository.appendingPathComponent("Fixtures/video/tracks.json"))
    let all = try JSONSerialization.jsonObject(with: data) as! [String: [[String: [Int]]]]
    return try #require(all[clip])
}

/// For each patch, the ids its faces got, and in how many frames it was found.
func idsByPatch(_ records: [[String: Any]], truth: [[String: [Int]]]) -> [String: (ids: Set<Int>, frames: Int)] {
    var found: [String: (ids: Set<Int>, frames: Int)] = [:]
    for record in records {
        let visible = truth[record["frame"] as! Int]
        for face in record["faces"] as! [[String: Any]] {
            let box = face["box"] as! [Int]
            let (cx, cy) = (box[0] + box[2] / 2, box[1] + box[3] / 2)
            guard let patch = visible.first(where: { _, r in cx >= r[0] && cx < r[0] + r[2] && cy >= r[1] && cy < r[1] + r[3] })?.key
            else { continue }
            found[patch, default: ([], 0)].ids.insert(face["id"] as! Int)
            found[patch, default: ([], 0)].frames += 1
        }
    }
    return found
}

struct TrackingTests {
    @Test(arguments: [[], ["--fast"]])
    func twoCrossingFacesKeepTheirIds(mode: [String]) throws {
        let truth = try patchTruth("video/crossing.avi")
        let records = try run(facecamBinary, ["video", "--quiet"] + mode + ["Fixtures/video/crossing.avi"]).records()
        let found = idsByPatch(records, truth: truth)
        #expect(found.keys.sorted() == ["astronaut", "hopper"])
        for (patch, seen) in found {
            #expect(seen.ids.count == 1, "\(patch) got ids \(seen.ids)")
            #expect(seen.frames >= 32, "\(patch) found in \(seen.frames) of 40 frames")
        }
        #expect(found["astronaut"]?.ids != found["hopper"]?.ids)
    }

    @Test(arguments: [[], ["--fast"]])
    func aFaceThatLeavesEndsItsIdAndANewcomerGetsANewOne(mode: [String]) throws {
        let truth = try patchTruth("video/leave-enter.avi")
        let records = try run(facecamBinary, ["video", "--quiet"] + mode + ["Fixtures/video/leave-enter.avi"]).records()
        let found = idsByPatch(records, truth: truth)
        let leaving = try #require(found["astronaut"]), entering = try #require(found["hopper"])
        #expect(leaving.ids.count == 1 && entering.ids.count == 1)
        #expect(leaving.ids.isDisjoint(with: entering.ids))
        // Ids are numbered from 1 in order of appearance.
        #expect(leaving.ids == [1] && entering.ids == [2])
    }

    @Test func smoothingIsOffByDefaultAndEvensOutBoxes() throws {
        let plain = try facecam("video", "--quiet", "Fixtures/video/crossing.avi").records()
        let smooth = try facecam("video", "--quiet", "--smooth", "Fixtures/video/crossing.avi").records()
        // Without --smooth boxes are OpenCV's own (checked frame by frame in VideoCommandTests).
        let expected = try videoExpectations("video/crossing.avi")
        #expect(plain.map(boxes) == expected.map(\.boxes))
        // With it, the frame-to-frame jitter of a face's width shrinks.
        func jitter(_ records: [[String: Any]]) -> Int {
            let widths = records.compactMap { record in
                (record["faces"] as! [[String: Any]]).first { ($0["id"] as? Int) == 2 }.map { ($0["box"] as! [Int])[2] }
            }
            return zip(widths, widths.dropFirst()).map { abs($0 - $1) }.reduce(0, +)
        }
        #expect(jitter(smooth) < jitter(plain))
    }

    @Test func stillImagesCarryNoIds() throws {
        let record = try #require(try facecam("detect", "Fixtures/images/astronaut.png").records().first)
        #expect((record["faces"] as! [[String: Any]]).allSatisfy { $0["id"] == nil })
    }
}
