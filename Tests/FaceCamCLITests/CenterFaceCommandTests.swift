import Foundation
import Testing

/// facecam --detector centerface against the same model run directly with OpenCV's dnn and decoded
/// by Tests/Reference/centerface_reference.py (numpy): boxes and landmarks within a pixel, scores
/// within 0.01.
struct CenterFaceCommandTests {
    static let reference = repository.appendingPathComponent("Tests/Reference/centerface_reference.py").path
    static let crowd = repository.deletingLastPathComponent().appendingPathComponent("shared/data/crowd")
    static var crowdAvailable: Bool { FileManager.default.fileExists(atPath: crowd.appendingPathComponent("labels.json").path) }

    /// Every face of facecam's records for `files` against the reference's, file by file.
    static func compare(_ files: [String], facecam options: [String], reference referenceOptions: [String]) throws -> Int {
        let expected = try run(URL(fileURLWithPath: SharedDataTests.python), [reference] + referenceOptions + files)
        try #require(expected.status == 0, "\(expected.stderr)")
        let ours = try inProcess(["detect", "--detector", "centerface"] + options + files)
        #expect(ours.status == 0, "\(ours.ending)")
        let (found, wanted) = (try ours.records(), try expected.records())
        try #require(found.count == wanted.count)
        var faces = 0
        for (record, reference) in zip(found, wanted) {
            let referenceFaces = (reference["faces"] as! [[String: Any]]).map(ReferenceFace.init)
            #expect(facesMatch(record, referenceFaces), "\(record["source"]!): \(record["faces"]!) against \(referenceFaces)")
            faces += referenceFaces.count
        }
        return faces
    }

    @Test func fixturePhotographsMatchTheReference() throws {
        let files = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "grace_hopper.jpg", "two-faces.jpg"]
            .map { fixture("images/" + $0) }
        #expect(try Self.compare(files, facecam: [], reference: []) >= 5)
        // Another threshold and NMS threshold: still the reference's.
        #expect(try Self.compare(files, facecam: ["--score-threshold", "0.3", "--nms-threshold", "0.4"],
                                 reference: ["--score-threshold", "0.3", "--nms-threshold", "0.4"]) >= 5)
    }

    /// A portrait stored sideways: facecam turns it upright as the reference does, and maps the faces back.
    @Test func orientationsMatchTheReference() throws {
        for k in [3, 6, 8] {
            let file = fixture("orientations/portrait-\(k).jpg")
            let expected = try run(URL(fileURLWithPath: SharedDataTests.python), [Self.reference, "--orientation", "\(k)", file])
            let ours = try inProcess(["detect", "--detector", "centerface", "--orientation", "\(k)", file])
            let upright = try #require(try expected.records().first)["faces"] as! [[String: Any]]
            let record = try #require(try ours.records().first)
            let faces = record["faces"] as! [[String: Any]]
            try #require(faces.count == upright.count && faces.count == 1, "\(record)")
            // Compared upright: the record's preview is the upright image (no preview size given).
            let preview = (faces[0]["preview"] as! [Int]), box = (upright[0]["box"] as! [Int])
            #expect(zip(preview, box).allSatisfy { abs($0 - $1) <= 1 }, "orientation \(k): \(preview) against \(box)")
        }
    }

    /// Crowd photographs (small faces), at scale 1 and at scale 2 (the image enlarged twice).
    @Test(.enabled(if: CenterFaceCommandTests.crowdAvailable, "../shared/data/crowd is absent"), arguments: ["1", "2"])
    func crowdPhotographsMatchTheReferenceAtEachScale(_ scale: String) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.crowd.path).filter { $0.hasSuffix(".png") }.sorted()
            .prefix(6).map { Self.crowd.appendingPathComponent($0).path }
        let faces = try Self.compare(Array(files), facecam: ["--score-threshold", "0.3", "--scales", scale],
                                     reference: ["--score-threshold", "0.3", "--scale", scale])
        #expect(faces >= 10)
    }
}
