internal import CJPEG

/// JPEG encoding and decoding through libjpeg(-turbo).
public enum JPEG {
    /// Why libjpeg failed.
    public struct Failure: Error, Sendable {
        public var reason: String
    }

    /// True when `bytes` start with a JPEG start-of-image marker.
    public static func isJPEG(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
    }

    /// The size the header announces, read before anything is decoded; `cmyk`
    /// for CMYK and YCCK files, which libjpeg does not convert to BGRA.
    static func header(_ bytes: [UInt8]) throws(Failure) -> (size: PixelSize, cmyk: Bool) {
        var header = cjpeg_header()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer { data in
            cjpeg_read_header(data.baseAddress, data.count, &header, &message, message.count)
        }
        guard status == CJPEG_OK || status == CJPEG_ERROR_UNSUPPORTED else {
            throw Failure(reason: String(nulTerminated: message))
        }
        return (PixelSize(width: Int(header.width), height: Int(header.height)), status == CJPEG_ERROR_UNSUPPORTED)
    }

    /// Decodes a JPEG of the size its header announced to BGRA, with libjpeg's
    /// default settings, as OpenCV's imread does.
    static func decode(_ bytes: [UInt8], size: PixelSize) throws(Failure) -> Frame {
        var message = [CChar](repeating: 0, count: 256)
        let frame = Frame.decoded(size: size) { pixels, stride in
            bytes.withUnsafeBufferPointer { data in
                cjpeg_decode_into(
                    data.baseAddress, data.count, pixels, Int32(size.width), Int32(size.height), stride, &message, message.count)
            } == CJPEG_OK
        }
        guard let frame else { throw Failure(reason: String(nulTerminated: message)) }
        return frame
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
            throw Failure(reason: String(nulTerminated: message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}

extension Frame {
    /// A frame of `size` whose rows (`bytesPerRow` = 4 x width) `decode` writes
    /// in place, with no copy; nil when `decode` reports failure.
    static func decoded(size: PixelSize, _ decode: (UnsafeMutablePointer<UInt8>, Int) -> Bool) -> Frame? {
        let stride = size.width * 4
        var succeeded = false
        let pixels = [UInt8](unsafeUninitializedCapacity: stride * size.height) { buffer, count in
            succeeded = decode(buffer.baseAddress!, stride)
            count = succeeded ? buffer.count : 0
        }
        return succeeded ? Frame(width: size.width, height: size.height, bytesPerRow: stride, pixels: pixels) : nil
    }
}

extension String {
    /// The text before the first NUL of a C character buffer.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
