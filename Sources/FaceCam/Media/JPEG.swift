internal import CJPEG

/// JPEG encoding and decoding through libjpeg(-turbo).
public enum JPEG {
    /// Why libjpeg failed, and whether another decoder might still manage.
    public struct Failure: Error, Sendable {
        public var reason: String
        public var unsupportedColourSpace: Bool
    }

    /// True when `bytes` start with a JPEG start-of-image marker.
    public static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    /// Decodes to BGRA with libjpeg's default settings, as OpenCV's imread does.
    static func decode(_ bytes: [UInt8]) throws(Failure) -> Frame {
        var image = cjpeg_image()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { data in
            cjpeg_decode(data.baseAddress, data.count, &image, &message, message.count)
        }
        guard status == CJPEG_OK else {
            throw Failure(reason: String(nulTerminated: message), unsupportedColourSpace: status == CJPEG_ERROR_UNSUPPORTED)
        }
        defer { cjpeg_image_free(&image) }
        return Frame(copying: image.pixels, width: Int(image.width), height: Int(image.height), bytesPerRow: image.stride)
    }

    /// Encodes `frame` at `quality` (1...100).
    public static func encode(_ frame: Frame, quality: Int = 90) throws(Failure) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = frame.pixels.withUnsafeBufferPointer { pixels in
            cjpeg_encode(
                pixels.baseAddress, Int32(frame.width), Int32(frame.height), frame.bytesPerRow,
                Int32(quality), &output, &size, &message, message.count)
        }
        defer { cjpeg_buffer_free(output) }
        guard status == CJPEG_OK, let output else {
            throw Failure(reason: String(nulTerminated: message), unsupportedColourSpace: false)
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

extension Frame {
    /// Copies pixels that a C library allocated.
    init(copying pixels: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int) {
        self.init(
            width: width, height: height, bytesPerRow: bytesPerRow,
            pixels: Array(UnsafeBufferPointer(start: pixels, count: bytesPerRow * height)))
    }
}

extension String {
    /// The text before the first NUL of a C character buffer.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
