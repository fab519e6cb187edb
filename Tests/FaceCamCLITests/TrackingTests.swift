import FaceCam
@testable import FaceCamCLI
import FaceCamCore
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

/// Clips synthesised by Tests/Reference/synthetic_clips.py (python3-opencv, no facecam) with
/// their ground truth, made once per test run: faces of 80 to 200 pixels moving up to 15 pixels
/// a frame, appearing and vanishing mid-clip.
struct SyntheticClips: Sendable {
    /// Seeds 1 to 4 are the ones the tracker was tried on; the bench also scores held-out 5 to 8.
    static let seeds = [1, 2]
    /// Below the smallest face drawn (80 pixels): Haar searches half as long as from its default 30.
    static let smallestFace = "60"
    let directory: URL
    /// Per clip, per frame, each visible face's rect by name.
    let truth: [String: [[String: [Double]]]]

    static let shared: Result<SyntheticClips, Error> = Result { try SyntheticClips(seeds: seeds) }

    /// Synthesises the clips of `seeds` into a folder of their own, for this test run.
    init(seeds: [Int]) throws {
        directory = try runFolder.madeFolder("synthetic-\(UUID().uuidString)")
        let script = repository.appendingPathComponent("Tests/Reference/synthetic_clips.py").path
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/python3"), [script, repository.appendingPathComponent("Fixtures").path,
                                                      directory.path] + seeds.map(String.init))
        guard made.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: ["stderr": made.stderr]) }
        let data = try Data(contentsOf: directory.appendingPathComponent("truth.json"))
        truth = try JSONSerialization.jsonObject(with: data) as! [String: [[String: [Double]]]]
    }

    func path(_ seed: Int) -> String { directory.appendingPathComponent("synthetic-\(seed).avi").path }

    /// Per truth face, the id of the detection that overlaps its face best (IoU >= 0.3), frame by frame.
    func ids(_ records: [[String: Any]], seed: Int) -> [(frame: Int, ids: [String: Int])] {
        let frames = truth["synthetic-\(seed).avi"]!
        return records.compactMap { record in
            guard let index = record["frame"] as? Int, let faces = record["faces"] as? [[String: Any]] else { return nil }
            var ids: [String: Int] = [:]
            var taken = Set<Int>()
            for (name, r) in frames[index].sorted(by: { $0.key < $1.key }) {
                let truthBox = Rect(x: r[0], y: r[1], width: r[2], height: r[3])
                let scored = faces.indices.filter { !taken.contains($0) }.map { i -> (Int, Double) in
                    let b = faces[i]["box"] as! [Int]
                    return (i, truthBox.iou(Rect(x: Double(b[0]), y: Double(b[1]), width: Double(b[2]), height: Double(b[3]))))
                }
                if let best = scored.max(by: { $0.1 < $1.1 }), best.1 >= 0.3 {
                    taken.insert(best.0)
                    ids[name] = faces[best.0]["id"] as? Int
                }
            }
            return (index, ids)
        }
    }

    /// Faces found in two consecutive processed frames under different ids, as "face2 at frame 12: 3 -> 4"; with
    /// `within`, only frames at most that many source frames apart.
    func switches(_ records: [[String: Any]], seed: Int, within: Int = .max) -> [String] {
        let frames = ids(records, seed: seed)
        return zip(frames, frames.dropFirst()).filter { $1.frame - $0.frame <= within }.flatMap { before, after in
            after.ids.compactMap { name, id in
                before.ids[name].flatMap { $0 == id ? nil : "\(name) at frame \(after.frame): \($0) -> \(id)" }
            }
        }
    }
}

/// Axis-aligned rectangles for the tests' own overlap arithmetic.
struct Rect {
    var x, y, width, height: Double

    func iou(_ other: Rect) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        return w * h / (width * height + other.width * other.height - w * h)
    }
}

struct TrackingTests {
    /// A face found in two consecutive processed frames keeps its id, with both detectors, at --every 1 to 3, and on
    /// either side of the default --track-grace (5) to 10, where the grace follows --every. Each clip is searched once,
    /// at --every 1: a frame's faces are the same whichever frames were skipped, so a sampled run is that run's faces at
    /// every Nth frame, tracked by the tracker `video --every N` makes; at --every 6 the command's own run is compared.
    @Test(arguments: ["haar", "yunet"])
    func idsHoldAcrossSampledFrames(detector: String) throws {
        let clips = try SyntheticClips.shared.get()
        let tracking = try TrackingOptions.parse([])
        for seed in SyntheticClips.seeds {
            let search = ["video", "--quiet", "--detector", detector, "--min-size", SyntheticClips.smallestFace, clips.path(seed)]
            let records = try inProcess(search).records()
            expectIdsHold(records, clips: clips, seed: seed, "seed \(seed)")
            for every in [2, 3, 5, 6, 10] {
                let sampled = try Self.tracked(
                    records.filter { ($0["frame"] as! Int).isMultiple(of: every) }, by: tracking.makeTracker(every: every))
                if every == 6 {
                    let run = try inProcess(search + ["--every", "6"]).records()
                    #expect(Self.boxesAndIds(run) == Self.boxesAndIds(sampled), "seed \(seed)")
                }
                expectIdsHold(sampled, clips: clips, seed: seed, "seed \(seed), every \(every)")
            }
        }
    }

    /// Faces were found in most processed frames (else the check would mean nothing), and none changed its id.
    func expectIdsHold(_ records: [[String: Any]], clips: SyntheticClips, seed: Int, _ comment: String) {
        let found = clips.ids(records, seed: seed)
        let visible = found.map { clips.truth["synthetic-\(seed).avi"]![$0.frame].count }.reduce(0, +)
        #expect(found.map(\.ids.count).reduce(0, +) >= visible * 9 / 10, "\(comment)")
        #expect(clips.switches(records, seed: seed) == [], "\(comment)")
    }

    /// Each face as its frame, box and id.
    static func boxesAndIds(_ records: [[String: Any]]) -> [[Int]] {
        records.flatMap { record in
            ((record["faces"] as? [[String: Any]]) ?? []).map { [record["frame"] as! Int] + ($0["box"] as! [Int]) + [($0["id"] as? Int) ?? -1] }
        }
    }

    /// `records` with the ids `tracker` gives their faces, frame after frame.
    static func tracked(_ records: [[String: Any]], by tracker: FaceTracker) throws -> [[String: Any]] {
        try records.map { record in
            var faces = try #require(record["faces"] as? [[String: Any]])
            let size = try #require(record["size"] as? [Int]), previewSize = try #require(record["preview_size"] as? [Int])
            var result = FrameResult(
                source: "clip", frame: record["frame"] as! Int, time: (record["time"] as! NSNumber).doubleValue,
                size: PixelSize(width: size[0], height: size[1]), previewSize: PixelSize(width: previewSize[0], height: previewSize[1]),
                faces: try faces.map { face in
                    let box = try #require(face["box"] as? [Int]), preview = try #require(face["preview"] as? [Double])
                    return Face(
                        box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3]),
                        preview: FaceCamCore.Rect(x: preview[0], y: preview[1], width: preview[2], height: preview[3]), score: face["score"] as? Double)
                })
            tracker.track(&result)
            for index in faces.indices { faces[index]["id"] = result.faces[index].id }
            var tracked = record
            tracked["faces"] = faces
            return tracked
        }
    }

    /// The same when a busy detector drops frames: live, fed faster than it detects.
    @Test(arguments: ["haar", "yunet"])
    func idsHoldAcrossDroppedLiveFrames(detector: String) throws {
        let clips = try SyntheticClips.shared.get()
        for seed in SyntheticClips.seeds {
            let live = try inProcess(["live", "--source", clips.path(seed), "--detector", detector, "--min-size", SyntheticClips.smallestFace])
            #expect(live.status == 0, "\(live.ending)")
            let records = try live.records()
            let sequences = records.compactMap { $0["sequence"] as? Int }
            // Frames were dropped: the processed sequence numbers have gaps.
            #expect(zip(sequences, sequences.dropFirst()).contains { $1 - $0 > 1 }, "seed \(seed): nothing dropped")
            // A track ends once its face is unseen for more than --track-grace source frames (5): over a longer drop, which
            // a loaded machine makes, a new id is the tracker's rule, not a switch.
            #expect(clips.switches(records, seed: seed, within: TrackerSettings().grace) == [], "seed \(seed)")
        }
    }

    @Test(arguments: [[], ["--fast"]])
    func twoCrossingFacesKeepTheirIds(mode: [String]) throws {
        let truth = try patchTruth("video/crossing.avi")
        let records = try inProcess(["video", "--quiet"] + mode + ["Fixtures/video/crossing.avi"]).records()
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
        let records = try inProcess(["video", "--quiet"] + mode + ["Fixtures/video/leave-enter.avi"]).records()
        let found = idsByPatch(records, truth: truth)
        let leaving = try #require(found["astronaut"]), entering = try #require(found["hopper"])
        #expect(leaving.ids.count == 1 && entering.ids.count == 1)
        #expect(leaving.ids.isDisjoint(with: entering.ids))
        // Ids are numbered from 1 in order of appearance.
        #expect(leaving.ids == [1] && entering.ids == [2])
    }

    @Test func eventsMarkWhereEachIdStartsAndEnds() throws {
        // The ground truth: the astronaut is in view in frames 0 to 17, Hopper from 22 to the end (39).
        let run = try inProcess("video", "--quiet", "--events", "Fixtures/video/leave-enter.avi")
        let lines = try run.records()
        let events = lines.filter { $0["event"] != nil }
        #expect(events.map { "\($0["event"]!) \($0["id"]!)" } == ["enter 1", "leave 1", "enter 2", "leave 2"])
        #expect(events[0]["frame"] as? Int == 0 && events[0]["time"] as? Double == 0)
        let leftAt = try #require(events[1]["last_frame"] as? Int)
        #expect(events[1]["first_frame"] as? Int == 0)
        #expect((10...17).contains(leftAt), "last seen at \(leftAt)")
        // Decided at the first frame past the grace (5 source frames).
        #expect(events[1]["frame"] as? Int == leftAt + 6)
        let enteredAt = try #require(events[2]["frame"] as? Int)
        #expect((22...30).contains(enteredAt))
        // Still in view at the end: it leaves with the source's last frame.
        #expect(events[3]["frame"] as? Int == 39 && events[3]["last_frame"] as? Int == 39)
        // An event comes before the record of the frame that decided it.
        let firstFrame = try #require(lines.firstIndex { $0["faces"] != nil })
        #expect(lines.firstIndex { $0["event"] != nil }! < firstFrame)
        // Without --events, the stream is frames only.
        #expect(try inProcess("video", "--quiet", "Fixtures/video/leave-enter.avi").records().allSatisfy { $0["event"] == nil })
        let text = try inProcess(["video", "--quiet", "--events", "--format", "text", "Fixtures/video/leave-enter.avi"], extension: "txt")
        #expect(text.lines.contains("Fixtures/video/leave-enter.avi frame 0 at 0 s: id 1 entered"))
    }

    @Test func liveExitOnEnterEndsAtTheFirstFace() throws {
        let run = try inProcess("live", "--source", "Fixtures/video/leave-enter.avi", "--exit-on", "enter", "--events")
        #expect(run.status == 0, "\(run.ending)")
        let lines = try run.records()
        // The enter event, then the frame that holds the face, and nothing after.
        #expect(lines.count == 2)
        #expect(lines.first?["event"] as? String == "enter" && lines.last?["frame"] as? Int == 0)
    }

    @Test func liveExitOnLeaveWaitsForTheFaceToGo() throws {
        let run = try inProcess(
            "live", "--source", "Fixtures/video/leave-enter.avi", "--realtime", "--exit-on", "leave", "--events")
        #expect(run.status == 0, "\(run.ending)")
        let lines = try run.records()
        let leave = try #require(lines.first { $0["event"] as? String == "leave" })
        #expect(leave["id"] as? Int == 1)
        // Only the frame that decided it follows the leave event.
        #expect(lines.last?["frame"] as? Int == leave["frame"] as? Int && lines.last?["faces"] != nil)
        // Last seen while in view (frames 0 to 17), and decided at the first frame processed once it was gone for more
        // than the grace (5 frames): counted from the frames processed, which a loaded machine drops more of.
        let lastSeen = try #require(leave["last_frame"] as? Int), decided = try #require(leave["frame"] as? Int)
        let processed = lines.filter { $0["faces"] != nil }.compactMap { $0["frame"] as? Int }
        #expect(lastSeen <= 17 && decided == processed.first { $0 > lastSeen + 5 })
    }

    @Test func smoothingIsOffByDefaultAndEvensOutBoxes() throws {
        let plain = try inProcess("video", "--detector", "haar", "--quiet", "Fixtures/video/crossing.avi").records()
        let smooth = try inProcess("video", "--detector", "haar", "--quiet", "--smooth", "Fixtures/video/crossing.avi").records()
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
        let record = try #require(try inProcess("detect", "Fixtures/images/astronaut.png").records().first)
        #expect((record["faces"] as! [[String: Any]]).allSatisfy { $0["id"] == nil })
    }
}

/// What the binary says when a run ends without the event it waited for.
struct TrackingCommandTests {
    @Test func liveExitOnWithoutTheEventIsStatus9() throws {
        // The astronaut is in view for the first 5 frames: it never leaves, and the end of the run is no leave.
        let run = try facecam("live", "--source", "Fixtures/video/leave-enter.avi", "--exit-on", "leave", "--frames", "5")
        #expect(run.status == 9)
        #expect(run.errorLines.last == "facecam: no face left before the end (--exit-on leave)")
    }
}
