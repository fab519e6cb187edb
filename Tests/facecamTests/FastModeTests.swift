import Foundation
import Testing

struct FastModeTests {
    /// Fast mode against exact mode's boxes (OpenCV's own, from Fixtures/expectations.jsonl) on the
    /// fixture clips: each exact box counts as found when a fast box of that frame overlaps it with
    /// IoU at least 0.5. `make bench` measures the same on more clips and the speed. A followed
    /// face is searched for as a search of the whole frame sees it, so most boxes are exactly
    /// OpenCV's (a search of its surroundings alone gave 10 of 148).
    @Test func fastModeFindsWhatExactModeFinds() throws {
        var matched = 0, identical = 0, exact = 0, fast = 0
        for clip in ["video/pan-zoom.avi", "video/rotated.mp4", "video/crossing.avi", "video/leave-enter.avi"] {
            let expected = Dictionary(uniqueKeysWithValues: try videoExpectations(clip).map { ($0.frame, $0.boxes) })
            let records = try facecam("video", "--quiet", "--fast", "Fixtures/" + clip).records()
            #expect(records.count == expected.count)
            for record in records {
                var found = boxes(record)
                fast += found.count
                for box in expected[record["frame"] as! Int] ?? [] {
                    exact += 1
                    if found.contains(box) { identical += 1 }
                    if let best = found.indices.max(by: { iou(box, found[$0]) < iou(box, found[$1]) }), iou(box, found[best]) >= 0.5 {
                        matched += 1
                        found.remove(at: best)
                    }
                }
            }
        }
        let recall = Double(matched) / Double(exact), precision = Double(matched) / Double(fast)
        #expect(recall >= 0.95, "recall \(recall): \(matched) of \(exact)")
        #expect(precision >= 0.95, "precision \(precision): \(matched) of \(fast)")
        #expect(Double(identical) >= 0.9 * Double(exact), "\(identical) of \(exact) boxes exactly OpenCV's")
    }

    @Test func fastModeIsDeterministicOnFiles() throws {
        let first = try facecam("video", "--quiet", "--fast", "Fixtures/video/pan-zoom.avi")
        let second = try facecam("video", "--quiet", "--fast", "--jobs", "2", "Fixtures/video/pan-zoom.avi")
        #expect(first.status == 0 && !first.stdout.isEmpty)
        #expect(first.stdout == second.stdout)
    }

    @Test func liveFastModeKeepsUpWithAVideoPlayedInRealTime() throws {
        let result = try facecam("live", "--fast", "--source", "Fixtures/video/crossing.avi", "--realtime")
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(summaryCounts(result))
        #expect(counts.captured == 40 && counts.processed + counts.dropped == 40)
        // Both faces are found once the first background search has come back, and every face has an id.
        // (How many ids the occlusion in the middle costs depends on timing here; the file tests pin it down.)
        let faces = try result.records().flatMap { $0["faces"] as! [[String: Any]] }
        #expect(faces.allSatisfy { $0["id"] is Int })
        #expect(Set(faces.compactMap { $0["id"] as? Int }).count >= 2)
        #expect(try result.records().contains { ($0["faces"] as! [[String: Any]]).count == 2 })
    }
}

func iou(_ a: [Int], _ b: [Int]) -> Double {
    let width = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    let height = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    guard width > 0, height > 0 else { return 0 }
    let intersection = Double(width * height)
    return intersection / (Double(a[2] * a[3] + b[2] * b[3]) - intersection)
}
