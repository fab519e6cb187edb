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
        var cascade: String?
        var scale_factor: Double?
        var min_neighbors: Int?
        var min_size: [Int]?
        var max_size: [Int]?
        var orientation: Int?
        var aperture: [Int]?
    }

    var file: String
    var options: Options
    var boxes: [[Int]]

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

    var settings: GeometrySettings {
        GeometrySettings(
            aperture: options.aperture.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) },
            orientation: Orientation(rawValue: options.orientation ?? 1)!)
    }

    var expectedBoxes: [PixelRect] {
        boxes.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
    }

    var description: String { "\(file) \(boxes)" }
}
