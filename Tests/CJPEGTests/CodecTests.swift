import CJPEG
import Foundation
import Testing

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

func decode(_ bytes: [UInt8]) -> (cjpeg_status, cjpeg_image, String) {
    var image = cjpeg_image()
    var message = [CChar](repeating: 0, count: 200)
    let status = bytes.withUnsafeBufferPointer { cjpeg_decode($0.baseAddress, $0.count, &image, &message, message.count) }
    return (status, image, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
}

struct CodecTests {
    static let hopper = (try? [UInt8](Data(contentsOf: fixtures.appendingPathComponent("images/grace_hopper.jpg")))) ?? []

    @Test func decodesToOpaqueBGRA() {
        var (status, image, _) = decode(Self.hopper)
        defer { cjpeg_image_free(&image) }
        #expect(status == CJPEG_OK)
        #expect(image.width == 512 && image.height == 512 && image.stride == 2048)
        #expect((0..<512 * 512).allSatisfy { image.pixels[$0 * 4 + 3] == 255 })
    }

    @Test(arguments: [0.25, 0.5, 0.9, 0.999])
    func truncatedFilesAreCorruptNotPadded(fraction: Double) {
        var (status, image, message) = decode(Array(Self.hopper.prefix(Int(Double(Self.hopper.count) * fraction))))
        defer { cjpeg_image_free(&image) }
        #expect(status == CJPEG_ERROR_CORRUPT)
        #expect(image.pixels == nil)
        #expect(!message.isEmpty)
    }

    @Test func garbageAfterTheMarkerIsCorrupt() {
        var (status, image, message) = decode([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x12, 0x34] + [UInt8](repeating: 0x55, count: 64))
        defer { cjpeg_image_free(&image) }
        #expect(status == CJPEG_ERROR_CORRUPT)
        #expect(!message.isEmpty)
        #expect(decode([]).0 == CJPEG_ERROR_CORRUPT)
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
        var (status, image, _) = decode(encoded)
        defer { cjpeg_image_free(&image) }
        #expect(status == CJPEG_OK && image.width == 40 && image.height == 30)
        let centre = (15 * 40 + 20) * 4
        #expect(abs(Int(image.pixels[centre]) - 30) <= 3 && abs(Int(image.pixels[centre + 1]) - 160) <= 3
            && abs(Int(image.pixels[centre + 2]) - 220) <= 3)
        #expect(cjpeg_encode(pixels, 40, 30, 100, 90, &output, &size, &message, message.count) == CJPEG_ERROR_INVALID_ARGUMENT)
    }
}
