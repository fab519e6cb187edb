import Foundation
import Testing

/// WIDER FACE's training photographs at full resolution, ../shared/data/wider/tune.
enum WiderTune {
    static let root = CenterFaceCommandTests.crowd.deletingLastPathComponent().appendingPathComponent("wider/tune")
    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("labels.json").path) }
}

/// --size-check (redact's default) on three WIDER FACE training photographs of ../shared/data/wider (read in place;
/// skipped when absent) where redact's detector takes dancers' legs, marchers' legs and a float's painted head for
/// faint faces several times the size of the faces around them.
@Suite(.enabled(if: WiderTune.available, "../shared/data/wider is absent"))
struct SizeCheckCommandTests {
    static let tune = WiderTune.root
    static let photographs: [String] = [
        "4--Dancing/4_Dancing_Dancing_4_76.jpg", "0--Parade/0_Parade_Parade_0_129.jpg", "0--Parade/0_Parade_Parade_0_394.jpg",
    ]
    static var paths: [String] { photographs.map { tune.appendingPathComponent("images/" + $0).path } }
    /// redact's detector, given in full (so that --size-check alone differs).
    static let redactionDetector: [String] = ["--detector", "centerface", "--score-threshold", "0.1", "--scales", "1,2,3", "--focus", "--plus-yunet"]

    /// Each face --size-check drops scores under 0.3 and is over 4 times as tall as the median of the faces scoring
    /// 0.5 or more whose centres lie within 2 of its heights of its own; no faint face it keeps is; it drops at least
    /// one face a photograph, and keeps the others as they were.
    @Test func detectDropsTheFaintFacesOutOfSizeAndOnlyThose() throws {
        var faces: [[[[String: Any]]]] = []
        for options in [[], ["--size-check"]] {
            let result = try inProcess(["detect"] + Self.redactionDetector + options + Self.paths)
            #expect(result.status == 0, "\(result.ending)")
            faces.append(try result.records().map { try #require($0["faces"] as? [[String: Any]]) })
        }
        try #require(faces[0].count == Self.photographs.count && faces[1].count == Self.photographs.count)
        for (all, kept) in zip(faces[0], faces[1]) {
            let keptBoxes = kept.map { $0["box"] as! [Int] }
            let dropped = all.filter { !keptBoxes.contains($0["box"] as! [Int]) }
            #expect(kept.count + dropped.count == all.count, "a face kept that was not found")
            #expect(!dropped.isEmpty)
            let confident = all.filter { ($0["score"] as! Double) >= 0.5 }.map { $0["preview"] as! [Double] }
            func outOfSize(_ face: [String: Any]) -> Bool {
                let box = face["preview"] as! [Double]
                guard (face["score"] as! Double) < 0.3 else { return false }
                let near = confident.filter { abs(($0[1] + $0[3] / 2) - (box[1] + box[3] / 2)) <= 2 * box[3] }.map { $0[3] }.sorted()
                guard !near.isEmpty else { return false }
                let median = near.count % 2 == 1 ? near[near.count / 2] : (near[near.count / 2 - 1] + near[near.count / 2]) / 2
                return box[3] > 4 * median
            }
            #expect(dropped.allSatisfy(outOfSize), "\(dropped)")
            #expect(!kept.contains(where: outOfSize))
        }
    }

}

/// redact's size check, end to end.
@Suite(.enabled(if: WiderTune.available, "../shared/data/wider is absent"))
struct SizeCheckRedactCommandTests {
    /// redact's defaults against --no-size-check, scored by Tests/Reference/wider_eval.py on PNG copies (so that what a
    /// mask leaves stays byte for byte): less of the picture masked away from labelled faces, and no face more left.
    @Test func redactHidesLessOfThePictureAndLeavesNoFaceMore() throws {
        let directory = try temporaryDirectory("size-check")
        defer { try? FileManager.default.removeItem(at: directory) }
        let originals = directory.appendingPathComponent("originals")
        let copied = try run(URL(fileURLWithPath: SharedDataTests.python), [
            "-c", """
            import cv2, json, os, sys
            labels, out = json.load(open(sys.argv[1])), sys.argv[2]
            os.makedirs(out)
            names = {}
            for path, name in zip(sys.argv[3::2], sys.argv[4::2]):
                png = os.path.splitext(os.path.basename(name))[0] + ".png"
                cv2.imwrite(os.path.join(out, png), cv2.imread(path))
                names[png] = labels[name]
            json.dump(names, open(os.path.join(out, "labels.json"), "w"))
            """,
            SizeCheckCommandTests.tune.appendingPathComponent("labels.json").path, originals.path,
        ] + zip(SizeCheckCommandTests.paths, SizeCheckCommandTests.photographs).flatMap { [$0, $1] })
        try #require(copied.status == 0, "\(copied.stderr)")
        let pngs = try FileManager.default.contentsOfDirectory(atPath: originals.path).filter { $0.hasSuffix(".png") }.sorted()
            .map { originals.appendingPathComponent($0).path }
        try #require(pngs.count == SizeCheckCommandTests.photographs.count)
        var scores: [(left: Int, away: Double)] = []
        for options in [[], ["--no-size-check"]] {
            let redacted = directory.appendingPathComponent(options.isEmpty ? "checked" : "unchecked").path
            let result = try run(facecamBinary, ["redact", "--quiet", "--output-dir", redacted] + options + pngs)
            #expect(result.status == 0, "\(result.stderr)")
            let score = try CrowdTests.evaluate(["untouched", originals.appendingPathComponent("labels.json").path, originals.path, redacted])
            scores.append((score["untouched"] as! Int, (score["masked_away"] as! NSNumber).doubleValue))
        }
        #expect(scores[0].left <= scores[1].left, "\(scores)")
        #expect(scores[0].away < scores[1].away, "\(scores)")
    }
}
