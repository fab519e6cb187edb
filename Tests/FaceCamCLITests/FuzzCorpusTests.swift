import Foundation
import Testing

/// The fuzz targets' committed corpus (seeds and crash reproducers), replayed through the
/// targets built plainly, and each seed image decoded by facecam itself.
struct FuzzCorpusTests {
    static let corpus = repository.appendingPathComponent("Tests/Fuzz/corpus")
    static let replayer = facecamBinary.deletingLastPathComponent().appendingPathComponent("facecam-fuzz")

    static func files(_ target: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent(target).path).sorted()
            .map { corpus.appendingPathComponent(target).appendingPathComponent($0).path }
    }

    @Test(arguments: ["decoders", "geometry"])
    func theCorpusReplaysWithoutACrash(_ target: String) throws {
        let files = try Self.files(target)
        try #require(!files.isEmpty)
        let result = try run(Self.replayer, [target] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "replayed \(files.count) files through \(target)\n")
    }

    /// One seed per format facecam reads (written by OpenCV): each header is read right.
    @Test func everyFormatsSeedDecodesAtItsSize() throws {
        let files = try Self.files("decoders")
        let extensions = Set(files.map { URL(fileURLWithPath: $0).pathExtension })
        #expect(extensions == ["bmp", "jpg", "pam", "pbm", "pgm", "png", "ppm", "tiff", "webp"])
        let result = try run(facecamBinary, ["detect"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.records().allSatisfy { $0["size"] as? [Int] == [24, 24] })
        #expect(try result.records().count == files.count)
    }
}
