import CJPEG
import Foundation
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

/// A decoded image, or why not.
struct Decoded {
    var status: cjpeg_status
    var width: Int32 = 0
    var height: Int32 = 0
    var pixels: [UInt8] = []
    var message: String
}

func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The header, then the pixels into a buffer of the header's size, as facecam decodes.
func decode(_ bytes: [UInt8]) -> Decoded {
    var header = cjpeg_header()
    var message = [CChar](repeating: 0, count: 200)
    let status = bytes.withUnsafeBufferPointer { cjpeg_read_header($0.baseAddress, $0.count, &header, &message, message.count) }
    guard status == CJPEG_OK else { return Decoded(status: status, message: text(message)) }
    var pixels = [UInt8](repeating: 0, count: Int(header.width) * Int(header.height) * 4)
    let decoded = bytes.withUnsafeBufferPointer { data in
        pixels.withUnsafeMutableBufferPointer {
            cjpeg_decode_into(data.baseAddress, data.count, $0.baseAddress, header.width, header.height,
                              Int(header.width) * 4, &message, message.count)
        }
    }
    return Decoded(status: decoded, width: header.width, height: header.height, pixels: pixels, message: text(message))
}

struct CodecTests {
    static let hopper = (try? [UInt8](Data(contentsOf: fixtures.appendingPathComponent("images/grace_hopper.jpg")))) ?? []

    @Test func decodesToOpaqueBGRA() {
        let image = decode(Self.hopper)
        #expect(image.status == CJPEG_OK)
        #expect(image.width == 512 && image.height == 512)
        #expect((0..<512 * 512).allSatisfy { image.pixels[$0 * 4 + 3] == 255 })
    }

    @Test(arguments: [0.25, 0.5, 0.9, 0.999])
    func truncatedFilesAreCorruptNotPadded(fraction: Double) {
        let image = decode(Array(Self.hopper.prefix(Int(Double(Self.hopper.count) * fraction))))
        #expect(image.status == CJPEG_ERROR_CORRUPT)
        #expect(!image.message.isEmpty)
    }

    /// Cut in half with the end-of-image marker put back: libjpeg only warns
    /// ("premature end of data segment") and fills the rest with grey; here it is an error.
    @Test func halfAFileWithItsEndMarkerIsCorrupt() {
        let image = decode(Array(Self.hopper.prefix(Self.hopper.count / 2)) + [0xFF, 0xD9])
        #expect(image.status == CJPEG_ERROR_CORRUPT)
        #expect(image.message.contains("Corrupt JPEG data") || image.message.contains("Premature end"), "\(image.message)")
    }

    /// Bytes flipped in the entropy-coded data: libjpeg warns of corrupt data, which is an error here.
    @Test func flippedBytesInTheImageDataAreCorrupt() {
        var damaged = Self.hopper
        for offset in stride(from: damaged.count / 2, to: damaged.count / 2 + 400, by: 40) { damaged[offset] ^= 0xFF }
        #expect(decode(damaged).status == CJPEG_ERROR_CORRUPT)
    }

    @Test func theHeaderAloneTellsTheSize() throws {
        // A 938-byte-style bomb: a header that claims 16000 x 16000. Reading it allocates nothing.
        var bomb = Self.hopper
        // The start-of-frame marker (baseline, extended or progressive): length, precision, height, width.
        let sof = try #require((0..<bomb.count - 1).first { bomb[$0] == 0xFF && (0xC0...0xC2).contains(bomb[$0 + 1]) })
        bomb.replaceSubrange(sof + 5..<sof + 9, with: [0x3E, 0x80, 0x3E, 0x80])
        var header = cjpeg_header()
        var message = [CChar](repeating: 0, count: 200)
        let status = bomb.withUnsafeBufferPointer { cjpeg_read_header($0.baseAddress, $0.count, &header, &message, message.count) }
        #expect(status == CJPEG_OK)
        #expect(header.width == 16000 && header.height == 16000)
    }

    @Test func garbageAfterTheMarkerIsCorrupt() {
        let image = decode([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x12, 0x34] + [UInt8](repeating: 0x55, count: 64))
        #expect(image.status == CJPEG_ERROR_CORRUPT)
        #expect(!image.message.isEmpty)
        #expect(decode([]).status == CJPEG_ERROR_CORRUPT)
    }

    @Test func encodeThenDecodeKeepsSizeAndColour() {
        // A solid colour survives JPEG almost exactly.
        let pixels = [UInt8]((0..<40 * 30).flatMap { _ in [UInt8(30), 160, 220, 255] })
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        #expect(cjpeg_encode(pixels, 40, 30, 160, 90, &output, &size, &message, message.count) == CJPEG_OK)
        defer { cjpeg_buffer_free(output) }
        let encoded = Array(UnsafeBufferPointer(start: output, count: size))
        let image = decode(encoded)
        #expect(image.status == CJPEG_OK && image.width == 40 && image.height == 30)
        let centre = (15 * 40 + 20) * 4
        #expect(abs(Int(image.pixels[centre]) - 30) <= 3 && abs(Int(image.pixels[centre + 1]) - 160) <= 3
            && abs(Int(image.pixels[centre + 2]) - 220) <= 3)
        #expect(cjpeg_encode(pixels, 40, 30, 100, 90, &output, &size, &message, message.count) == CJPEG_ERROR_INVALID_ARGUMENT)
    }
}
