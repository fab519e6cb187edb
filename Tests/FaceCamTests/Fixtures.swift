import Foundation
@testable import FaceCam

/// The repository's Fixtures/ folder, found from this file's place.
let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

func fixture(_ relative: String) -> String {
    fixtures.appendingPathComponent(relative).path
}

/// One line of Fixtures/expectations.jsonl: what OpenCV, called directly by
/// Tests/Reference/opencv_faces.py, finds in a fixture with some options.
struct Expectation: Decodable, CustomStringConvertible {
    struct Options: Decodable {
        var detector: String
        var score_threshold: Double?
        var nms_threshold: Double?
        var top_k: Int?
        var cascade: String?
        var scale_factor: Double?
        var min_neighbors: Int?
        var min_size: [Int]?
        var max_size: [Int]?
        var orientation: Int?
        var aperture: [Int]?
    }

    /// A YuNet face as the reference reports it.
    struct YuNetFace: Decodable {
        var box: [Int]
        var score: Double
        var landmarks: [[Double]]
    }

    var file: String
    var options: Options
    var boxes: [[Int]]
    /// YuNet's faces in full (YuNet cases only).
    var faces: [YuNetFace]?

    /// The still-image cases (video frames' lines have no options).
    static func all() throws -> [Expectation] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("expectations.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").filter { $0.contains("\"options\"") }
            .map { try JSONDecoder().decode(Expectation.self, from: Data($0.utf8)) }
    }

    var parameters: DetectorParameters {
        DetectorParameters(
            scaleFactor: options.scale_factor ?? 1.1, minNeighbors: options.min_neighbors ?? 3,
            minSize: options.min_size.map { PixelSize(width: $0[0], height: $0[1]) } ?? PixelSize(width: 30, height: 30),
            maxSize: options.max_size.map { PixelSize(width: $0[0], height: $0[1]) })
    }

    var modelParameters: ModelParameters {
        ModelParameters(
            scoreThreshold: options.score_threshold ?? 0.9, nmsThreshold: options.nms_threshold ?? 0.3,
            topK: options.top_k ?? 5000,
            minSize: options.min_size.map { PixelSize(width: $0[0], height: $0[1]) } ?? PixelSize(width: 0, height: 0),
            maxSize: options.max_size.map { PixelSize(width: $0[0], height: $0[1]) })
    }

    /// A detector made as the expectation's options say.
    func makeDetector() throws -> any FrameFaceDetector {
        if options.detector == "yunet" {
            return try ModelFaceDetector(model: FaceModelFile(shipped: .yunet), parameters: modelParameters)
        }
        return try FaceDetector(cascade: Cascade(resolving: options.cascade ?? Cascade.defaultName), parameters: parameters)
    }

    var settings: GeometrySettings {
        GeometrySettings(
            aperture: options.aperture.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) },
            orientation: Orientation(rawValue: options.orientation ?? 1)!)
    }

    var expectedBoxes: [PixelRect] {
        boxes.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
    }

    var description: String { "\(file) \(options.detector) \(boxes)" }
}

/// Runs a program the tests use as a reference or to make inputs (ffmpeg, ffprobe) and waits for it: its status, its
/// standard output, and its standard error. Both go to files, so that no pipe fills up.
func tool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let files = ["out", "err"].map { FileManager.default.temporaryDirectory.appendingPathComponent("facecam-tool-\(UUID().uuidString).\($0)") }
    defer { files.forEach { try? FileManager.default.removeItem(at: $0) } }
    let handles = try files.map {
        _ = FileManager.default.createFile(atPath: $0.path, contents: nil) // if not made, FileHandle's error names it
        return try FileHandle(forWritingTo: $0)
    }
    process.standardOutput = handles[0]
    process.standardError = handles[1]
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try handles.forEach { try $0.close() }
    let texts = try files.map { try String(contentsOf: $0, encoding: .utf8) }
    return (process.terminationStatus, texts[0], texts[1])
}
