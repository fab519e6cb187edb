import Foundation
import Testing

/// --zone and --ignore-zone end to end: each face's zones and the zones' events, checked against the
/// faces of a run without zones (their preview boxes' centres, sorted into the halves of the
/// 640x360 preview by the test).
struct ZoneCommandTests {
    static let clip = "Fixtures/video/leave-enter.avi"
    static let halves = ["--zone", "left=0,0,320,0,320,360,0,360", "--zone", "right=320,0,640,0,640,360,320,360"]

    /// Which half each face's centre is in, frame by frame, as (track id, half).
    static func halvesByFrame(_ run: InProcessRun) throws -> [[(id: Int, half: String)]] {
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
        let plain = try inProcess("video", "--quiet", Self.clip)
        let zoned = try inProcess(["video", "--quiet", "--events", "--on-event",
            "echo \"$FACECAM_EVENT $FACECAM_ID ${FACECAM_ZONE:-}\" >> \(directory.path)/events"] + Self.halves + [Self.clip])
        #expect(zoned.status == 0, "\(zoned.ending)")
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
        // A zone's leave is no track's end: it has no span.
        for record in try zoned.records() where record["zone"] != nil { #expect(record["first_frame"] == nil) }
        // --on-event ran for each, FACECAM_ZONE set for a zone's.
        let ran = try String(contentsOf: directory.appendingPathComponent("events"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(ran.sorted() == events.sorted())
    }

    /// A face centred in an --ignore-zone is dropped; the others are exactly those of a run without it.
    @Test func facesCentredInAnIgnoredZoneAreDropped() throws {
        let plain = try inProcess("video", "--quiet", Self.clip)
        let ignoring = try inProcess("video", "--quiet", "--ignore-zone", "320,0,640,0,640,360,320,360", Self.clip)
        #expect(ignoring.status == 0, "\(ignoring.ending)")
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
        (["video", "--mask-zone", "0,0,10,10,10,0,0,10"], "--mask-zone 0,0,10,10,10,0,0,10: the polygon crosses itself"),
        (["live", "--source", "Fixtures/video/leave-enter.avi", "--mask-zone", "0,0,100,0,100,400"],
         "Fixtures/video/leave-enter.avi: --mask-zone 1: the corner 100,400 lies outside the 640x360 preview"),
        (["live", "--source", "Fixtures/video/leave-enter.avi", "--zone", "door=0,0,700,0,700,100"],
         "Fixtures/video/leave-enter.avi: --zone door: the corner 700,0 lies outside the 640x360 preview"),
    ])
    func badPolygonsAreUsageErrors(arguments: [String], message: String) throws {
        let line = try reportedUsageError(arguments + (arguments[0] == "video" ? [Self.clip] : []))
        #expect(line?.hasPrefix("facecam: \(message)") == true, "\(line ?? "none")")
    }

    /// --exit-on enter ends at a face's first frame, with the zones it entered with written.
    @Test func exitOnEnterKeepsTheZonesEntered() throws {
        let result = try inProcess(
            "live", "--source", Self.clip, "--events", "--exit-on", "enter", "--zone", "right=320,0,640,0,640,360,320,360")
        #expect(result.status == 0, "\(result.ending)")
        let events = try result.records().filter { $0["event"] != nil }.map { "\($0["event"]!) \($0["id"]!) \($0["zone"] ?? "-")" }
        #expect(events == ["enter 1 -", "enter 1 right"])
    }
}

/// --mask-zone: the polygon is black on every picture written (checked with OpenCV-Python, which
/// fills the same polygon itself), the rest of the picture is as without it, and detection still
/// sees the whole frame.
struct MaskZoneCommandTests {
    static let image = "Fixtures/images/two-faces.jpg"
    static let polygon = "0,0,300,0,0,200"

    /// Mean grey inside the polygon (its pixels a few in from the edge, away from JPEG's ringing), and
    /// the mean difference from `plain` outside it (as far out).
    static func compare(_ masked: String, with plain: String) throws -> (inside: Double, outsideDifference: Double) {
        let script = """
            import cv2, numpy, sys
            masked, plain = cv2.imread(sys.argv[1]), cv2.imread(sys.argv[2])
            region = numpy.zeros(masked.shape[:2], numpy.uint8)
            cv2.fillPoly(region, [numpy.array([[0, 0], [300, 0], [0, 200]], numpy.int32)], 255)
            inside = cv2.erode(region, numpy.ones((9, 9), numpy.uint8)) > 0
            outside = cv2.dilate(region, numpy.ones((9, 9), numpy.uint8)) == 0
            difference = numpy.abs(masked.astype(float) - plain.astype(float)).mean(axis=2)
            print(masked[inside].mean(), difference[outside].mean())
            """
        let result = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, masked, plain])
        let numbers = result.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(numbers.count == 2, "\(result.stderr)")
        return (numbers[0], numbers[1])
    }

    @Test(arguments: ["detect", "redact", "live"])
    func theZoneIsBlackOnWhatIsWritten(command: String) throws {
        let directory = try temporaryDirectory("mask-zone")
        defer { try? FileManager.default.removeItem(at: directory) }
        var written: [String] = []
        var outputs: [String] = []
        for masked in [false, true] {
            let out = directory.appendingPathComponent(masked ? "masked" : "plain").path
            let mask = masked ? ["--mask-zone", Self.polygon] : []
            let arguments: [String] = switch command {
            case "detect": ["detect", "--annotate", out] + mask + [Self.image]
            case "redact": ["redact", "-o", out + ".png"] + mask + [Self.image]
            default: ["live", "--source", "Fixtures/video/leave-enter.avi", "--frames", "1", "--annotate", out] + mask
            }
            let result = try run(facecamBinary, arguments)
            #expect(result.status == 0, "\(result.stderr)")
            outputs.append(result.stdout)
            let picture = switch command {
            case "detect": out + "/two-faces.jpg"
            case "redact": out + ".png"
            default: out + "/frame-00000000.jpg"
            }
            written.append(picture)
        }
        let (inside, outside) = try Self.compare(written[1], with: written[0])
        #expect(inside < 8, "mean grey inside the mask: \(inside)")
        #expect(outside < 2, "mean difference outside the mask: \(outside)")
        // What is found does not change: detection sees the frame before the mask.
        if command != "redact" { #expect(outputs[0] == outputs[1]) }
    }
}

/// What the binary says of a zone that does not fit an input.
struct ZoneRefusalCommandTests {
    /// In video and detect, a polygon that does not fit an input's preview refuses that input, named;
    /// the others are done, and the status is a usage error's.
    @Test func aPolygonOutsideAnInputsPreviewRefusesThatInput() throws {
        let video = try facecam("video", "--quiet", "--zone", "door=0,0,700,0,700,100", ZoneCommandTests.clip)
        #expect(video.status == 64)
        #expect(video.errorLines.first == "facecam: \(ZoneCommandTests.clip): --zone door: the corner 700,0 lies outside the 640x360 preview")
        // astronaut.png is 512x512; two-faces.jpg 1024x512.
        let detect = try facecam("detect", "--mask-zone", "0,0,600,0,600,100", "Fixtures/images/astronaut.png", "Fixtures/images/two-faces.jpg")
        #expect(detect.status == 64)
        #expect(detect.errorLines == ["facecam: Fixtures/images/astronaut.png: --mask-zone 1: the corner 600,0 lies outside the 512x512 preview"])
        #expect(try detect.records().map { $0["source"] as? String } == ["Fixtures/images/two-faces.jpg"])
    }
}
