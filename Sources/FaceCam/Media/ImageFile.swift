#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// Still images on disk: JPEG through libjpeg, everything else OpenCV reads
/// (PNG, BMP, TIFF, WebP, PNM) through cv::imdecode.
public enum ImageFile {
    /// Files larger than this are refused rather than read into memory.
    public static let maximumFileSize = 1 << 30

    /// File name extensions picked up when a directory is listed.
    public static let extensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "bmp", "tif", "tiff", "webp", "pbm", "pgm", "ppm", "pnm"]

    public static func load(_ path: String) throws(FaceCamError) -> Frame {
        let bytes: [UInt8]
        do {
            let file = try FileDescriptor(opening: path, flags: O_RDONLY)
            bytes = try file.readAll(limit: maximumFileSize)
        } catch {
            throw .unreadable(error)
        }
        return try decode(bytes, source: path)
    }

    /// Decodes an encoded image; `source` names it in errors.
    public static func decode(_ bytes: [UInt8], source: String) throws(FaceCamError) -> Frame {
        if bytes.isEmpty { throw .undecodable(path: source, reason: "the file is empty") }
        if JPEG.isJPEG(bytes) {
            do {
                return try JPEG.decode(bytes)
            } catch where !error.unsupportedColourSpace {
                throw .undecodable(path: source, reason: "damaged or truncated JPEG (\(error.reason))")
            } catch {
                // CMYK and YCCK JPEGs: OpenCV converts those itself.
            }
        }
        if isPNG(bytes), !reachesPNGEnd(bytes) {
            // libpng would print its own complaint on stderr before OpenCV gives up.
            throw .undecodable(path: source, reason: "truncated PNG (it ends before its IEND chunk)")
        }
        return try decodeWithOpenCV(bytes, source: source)
    }

    static func isPNG(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// Walks the chunks (4-byte length, 4-byte type, data, 4-byte CRC) to IEND.
    static func reachesPNGEnd(_ bytes: [UInt8]) -> Bool {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if bytes[offset + 4..<offset + 8].elementsEqual("IEND".utf8) { return true }
            offset += 12 + length
        }
        return false
    }

    static func decodeWithOpenCV(_ bytes: [UInt8], source: String) throws(FaceCamError) -> Frame {
        var image = cfd_image()
        var error = cfd_error()
        let status = bytes.withUnsafeBufferPointer { cfd_decode_image($0.baseAddress, $0.count, &image, &error) }
        guard status == CFD_OK, let pixels = image.pixels else {
            // OpenCV's own text for these is an assertion message; say it plainly.
            throw .undecodable(path: source, reason: "not a JPEG, PNG or other image OpenCV reads, or damaged or too large")
        }
        defer { cfd_image_free(&image) }
        return Frame(copying: pixels, width: Int(image.width), height: Int(image.height), bytesPerRow: image.stride)
    }
}

extension cfd_error {
    /// The shim's message.
    var text: String {
        withUnsafeBytes(of: message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
