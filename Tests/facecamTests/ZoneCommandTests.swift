import Foundation
import Testing

/// --zone and --ignore-zone end to end: each face's zones and the zones' events, checked against the
/// faces of a run without zones (their preview boxes' centres, sorted into the halves of the
/// 640x360 preview by the test).
struct ZoneCommandTests {
    static let clip = "Fixtures/video/leave-enter.avi"
    static let halves = ["--zone", "left=0,0,320,0,320,360,0,360", "--zone", "right=320,0,640,0,640,360,320,360"]

    /// Which half each face's centre is in, frame by frame, as (track id, half).
    static func halvesByFrame(_ run: Run) throws -> [[(id: Int, half: String)]] {
        try run.records().filter { $0["faces"] != nil }.map { record in
            (record["faces"] as! [[String: Any]]).map { face in
                let box = face["preview"] as! [Double]
                return (face["id"] as! Int, box[0] + box[2] / 2 <= 320 ? "left" : "right")
            }
        }
    }

    @Test func facesListTheirZonesAndTracksEnterAndLeaveThem() throws {
        let directory = try temporaryDirectory("zones")
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try facecam("video", "--quiet", Self.clip)
        let zoned = try run(facecamBinary, ["video", "--quiet", "--events", "--on-event",
            "echo \"$FACECAM_EVENT $FACECAM_ID ${FACECAM_ZONE:-}\" >> \(directory.path)/events"] + Self.halves + [Self.clip])
        #expect(zoned.status == 0, "\(zoned.stderr)")
        let expected = try Self.halvesByFrame(plain)
        let frames = try zoned.records().filter { $0["faces"] != nil }
        try #require(frames.count == expected.count)
        // Each face: the half its centre is in (a centre on the line x = 320 is in both).
        for (record, halves) in zip(frames, expected) {
            let zones = (record["faces"] as! [[String: Any]]).map { $0["zones"] as? [String] }
            #expect(zones.map { $0?.count == 1 ? $0?.first : nil } == halves.map(\.half), "frame \(record["frame"]!)")
        }
        // The events: a track enters the zone of its first frame, and moves to the other half (leaving
        // the one, entering the other) when its centre does. Tracks end after the grace, so their
        // leave events are checked by their order below.
        var wanted: [String] = []
        var last: [Int: String] = [:]
        for halves in expected {
            for (id, half) in halves where last[id] != half {
                if let before = last[id] { wanted.append("leave \(id) \(before)") } else { wanted.append("enter \(id)") }
                wanted.append("enter \(id) \(half)")
                last[id] = half
            }
        }
        let events = try zoned.records().filter { $0["event"] != nil }.map { record in
            "\(record["event"]!) \(record["id"]!)" + ((record["zone"] as? String).map { " \($0)" } ?? "")
        }
        // Beside what `wanted` lists, each track's end: the leave of its zone, then its own leave.
        var moves: [String] = []
        for (index, event) in events.enumerated() {
            let words = event.split(separator: " ")
            let endsTrack = words.count == 2 || (index + 1 < events.count && events[index + 1] == "leave \(words[1])")
            if !(words[0] == "leave" && endsTrack) { moves.append(event) }
        }
        #expect(moves == wanted, "\(events)")
        // Every track leaves its zone just before it leaves.
        for (index, event) in events.enumerated() where event.hasPrefix("leave") && event.split(separator: " ").count == 2 {
            let id = event.split(separator: " ")[1]
            #expect(index > 0 && events[index - 1] == "leave \(id) \(last[Int(id)!]!)", "\(events)")
        }
        // --on-event ran for each, FACECAM_ZONE set for a zone's.
        let ran = try String(contentsOf: directory.appendingPathComponent("events"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(ran.sorted() == events.sorted())
    }

    /// A face centred in an --ignore-zone is dropped; the others are exactly those of a run without it.
    @Test func facesCentredInAnIgnoredZoneAreDropped() throws {
        let plain = try facecam("video", "--quiet", Self.clip)
        let ignoring = try facecam("video", "--quiet", "--ignore-zone", "320,0,640,0,640,360,320,360", Self.clip)
        #expect(ignoring.status == 0, "\(ignoring.stderr)")
        let kept = try plain.records().map { record in
            (record["faces"] as! [[String: Any]]).filter { face in
                let box = face["preview"] as! [Double]
                return box[0] + box[2] / 2 < 320
            }.map { $0["box"] as! [Int] }
        }
        let got = try ignoring.records().map { ($0["faces"] as! [[String: Any]]).map { $0["box"] as! [Int] } }
        #expect(got == kept)
        let all = try plain.records().map { ($0["faces"] as! [Any]).count }.reduce(0, +)
        #expect(kept.joined().count > 0 && kept.joined().count < all)
    }

    @Test(arguments: [
        (["video", "--zone", "door=0,0,10,0"], "--zone door=0,0,10,0: a polygon needs three corners or more"),
        (["video", "--zone", "door=0,0,10,10,10,0,0,10"], "--zone door=0,0,10,10,10,0,0,10: the polygon crosses itself"),
        (["video", "--zone", "a=0,0,10,0,10,10", "--zone", "a=0,0,5,0,5,5"], "--zone a is given twice"),
        (["video", "--ignore-zone", "0,0,1"], "--ignore-zone 0,0,1: the corners are pairs of numbers"),
        (["live", "--source", "Fixtures/video/leave-enter.avi", "--zone", "door=0,0,700,0,700,100"],
         "Fixtures/video/leave-enter.avi: --zone door: the corner 700,0 lies outside the 640x360 preview"),
    ])
    func badPolygonsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try run(facecamBinary, arguments + (arguments[0] == "video" ? [Self.clip] : []))
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("facecam: \(message)") == true, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// In video and detect, a polygon that does not fit an input's preview fails that input, named.
    @Test func aPolygonOutsideAVideosPreviewFailsThatVideo() throws {
        let result = try facecam("video", "--quiet", "--zone", "door=0,0,700,0,700,100", Self.clip)
        #expect(result.status == 1)
        #expect(result.errorLines.first == "facecam: \(Self.clip): --zone door: the corner 700,0 lies outside the 640x360 preview")
    }
}
