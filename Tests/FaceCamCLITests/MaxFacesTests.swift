import Foundation
import Testing

/// --max-faces and --by end to end: the faces kept are the best of OpenCV's own FaceDetectorYN's
/// (Tests/Reference/opencv_faces.py), by size or score, in the usual order.
struct MaxFacesTests {
    /// The astronaut's face pasted at four sizes onto one grey canvas, blurred by different amounts
    /// so that the scores differ too, made with OpenCV.
    static func group() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-max-faces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("group.png").path
        let script = "import cv2, numpy as np, sys; face = cv2.imread(sys.argv[1])[30:230, 140:310]; "
            + "canvas = np.full((520, 900, 3), 128, np.uint8); x = 10\n"
            + "for scale, blur in ((1.0, 0), (0.75, 3), (1.25, 6), (0.55, 1.5)):\n"
            + "    f = cv2.resize(face, None, fx=scale, fy=scale); f = cv2.GaussianBlur(f, (0, 0), blur) if blur else f; canvas[20:20 + f.shape[0], x:x + f.shape[1]] = f; x += f.shape[1] + 10\n"
            + "cv2.imwrite(sys.argv[2], canvas)"
        let made = try run(URL(fileURLWithPath: SharedDataTests.python), ["-c", script, fixture("images/astronaut.png"), path])
        try #require(made.status == 0, "\(made.stderr)")
        return (directory, path)
    }

    /// The reference rounds scores to 4 decimals: two of the faces score 1.0, and the best three by
    /// score (leaving out the 0.92 of the second smallest) differ from the three largest.
    @Test(arguments: [("size", 1), ("size", 2), ("size", 3), ("score", 3)])
    func theBestFacesAreKeptInTheUsualOrder(ranking: String, count: Int) throws {
        let (directory, path) = try Self.group()
        defer { try? FileManager.default.removeItem(at: directory) }
        let all = try referenceYuNetFaces(path, scoreThreshold: 0.5)
        try #require(all.count == 4, "the reference finds \(all.count) faces, not the four pasted")
        let key: (ReferenceFace) -> Double = ranking == "size" ? { Double($0.box[2] * $0.box[3]) } : { $0.score }
        let ranked = all.indices.sorted { key(all[$0]) > key(all[$1]) }
        try #require(key(all[ranked[count - 1]]) > key(all[ranked[count]]) + 0.001, "no clear best \(count) by \(ranking)")
        let best = Set(ranked.prefix(count))
        let expected = all.indices.filter(best.contains).map { all[$0] } // the reference lists faces in facecam's order
        let result = try inProcess(
            "detect", "--detector", "yunet", "--score-threshold", "0.5", "--max-faces", String(count), "--by", ranking, path)
        #expect(result.status == 0, "\(result.ending)")
        let record = try #require(try result.records().first)
        #expect(facesMatch(record, expected), "\(record["faces"]!) against \(expected)")
    }

}
