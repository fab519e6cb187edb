#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// A decoded still image, and how its metadata says to turn it upright.
public struct StillImage: Sendable {
    public var frame: Frame
    /// The orientation the file's metadata gives, where `cv::imread` honours it
    /// (JPEG and PNG EXIF, TIFF's tag); nil when it gives none.
    public var orientation: Orientation?
    /// True when decoding already turned `frame` upright by `orientation`: OpenCV's TIFF
    /// decoder does so whatever it is asked.
    public var orientedByDecoder: Bool

    /// What turns `frame` upright as `cv::imread` shows the file.
    public var uprightOrientation: Orientation { orientedByDecoder ? .up : orientation ?? .up }
}

/// Still images on disk: JPEG through libjpeg, everything else OpenCV reads
/// (PNG, BMP, TIFF, WebP, PNM) through cv::imdecode.
public enum ImageFile {
    /// Files larger than this are refused rather than read into memory.
    public static let maximumFileSize = 1 << 30

    /// File name extensions picked up when a directory is listed.
    public static let extensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "bmp", "tif", "tiff", "webp", "pbm", "pgm", "ppm", "pnm"]

    /// The most memory an image takes a pixel of it, decoded, marked and written again (a 240-megapixel PNG peaked at
    /// 3.6 GB in redact, 2.2 GB in detect): what an image is checked against the memory left, before it is decoded.
    static let bytesPerPixel = 16

    /// The default of `--max-megapixels`: beyond today's largest phone photographs
    /// (200 megapixels, 16384 x 12288 at most), short of a decompression bomb.
    public static let defaultMaximumPixels = 250_000_000

    /// Reads and decodes an image file; one that announces more than
    /// `maximumPixels` is refused from its header, before anything is decoded.
    public static func load(_ path: FilePath, maximumPixels: Int = defaultMaximumPixels) throws(FaceCamError) -> StillImage {
        try decode(try read(path), source: path.description, maximumPixels: maximumPixels)
    }

    /// An image file's bytes, at most `maximumFileSize`.
    static func read(_ path: FilePath) throws(FaceCamError) -> [UInt8] {
        let kind: FileKind
        let bytes: [UInt8]
        do {
            // Not blocking, and checked once open: a FIFO put in a file's place cannot hang the read.
            let file = try FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK)
            kind = FileKind(try file.status())
            bytes = kind == .regular ? try file.readAll(limit: maximumFileSize) : []
        } catch {
            throw .unreadable(error)
        }
        if kind == .directory { throw .directory(path: path.description) }
        guard kind == .regular else { throw .notARegularFile(path: path.description) }
        return bytes
    }

    /// Reads and decodes an image file keeping its alpha channel (opaque when it has none), as
    /// stored, whatever its metadata says; one that announces more than `maximumPixels` is refused
    /// from its header. `hasAlpha` says whether it had an alpha channel.
    public static func loadWithAlpha(_ path: FilePath, maximumPixels: Int) throws(FaceCamError) -> (frame: Frame, hasAlpha: Bool) {
        let bytes = try read(path)
        let source = path.description
        let header = try announced(bytes, source: source, maximumPixels: maximumPixels)
        if header.format == .png, let damage = PNGChunks.damage(in: bytes) { throw .undecodable(path: source, reason: damage) }
        var error = cfd_error()
        var hasAlpha: Int32 = 0
        let frame = Frame.decoded(size: header.size) { pixels, stride in
            bytes.withUnsafeBufferPointer { data in
                cfd_decode_image_with_alpha_into(
                    data.baseAddress, data.count, pixels, Int32(header.size.width), Int32(header.size.height), stride, &hasAlpha, &error)
            } == CFD_OK
        }
        guard let frame else {
            throw error.mediaUnavailable(source)
                ?? .undecodable(path: source, reason: error.status == CFD_ERROR_DECODE ? error.text : "damaged (\(error.text))")
        }
        return (frame, hasAlpha != 0)
    }

    /// The image's format and size as its header announces them, checked against `maximumPixels`.
    private static func announced(_ bytes: [UInt8], source: String, maximumPixels: Int) throws(FaceCamError)
        -> (format: ImageHeader.Format, size: PixelSize, cmyk: Bool, orientation: Orientation?)
    {
        if bytes.isEmpty { throw .undecodable(path: source, reason: "the file is empty") }
        guard var header = ImageHeader.read(bytes) else {
            if let named = FilePath(source).fileExtension, VideoInput.fileExtensions.contains(named) {
                throw .undecodable(path: source, reason: "a video, not an image: facecam video reads videos (and redact both)")
            }
            throw .undecodable(path: source, reason: "not a JPEG, PNG, BMP, TIFF, WebP or PNM image")
        }
        var cmyk = false
        if header.format == .jpeg {
            do {
                let jpeg = try JPEG.header(bytes)
                (header.width, header.height, cmyk) = (jpeg.size.width, jpeg.size.height, jpeg.cmyk)
            } catch {
                throw .undecodable(path: source, reason: "damaged or truncated JPEG (\(error.reason))")
            }
        }
        guard header.width > 0, header.height > 0 else {
            throw .undecodable(path: source, reason: "its \(header.format.rawValue) header announces an empty image")
        }
        let size = PixelSize(width: header.width, height: header.height)
        try checkPixels(size, limit: maximumPixels, source: source)
        // Decoded (3 bytes a pixel), made a frame (4), its preview marked (4) and encoded again (3), with the search's
        // shrunk copies: about 16 bytes a pixel at most (redact; detect about 9). A failed allocation would end the run.
        let need = size.width * size.height * Self.bytesPerPixel
        if let room = MemoryRoom.bytes(), need > room { throw .tooLargeForMemory(path: source, size: size, need: need, room: room) }
        return (header.format, size, cmyk, header.orientation)
    }

    public static func load(_ path: String, maximumPixels: Int = defaultMaximumPixels) throws(FaceCamError) -> StillImage {
        try load(FilePath(path), maximumPixels: maximumPixels)
    }

    /// Decodes an encoded image as stored (but TIFF, which OpenCV turns upright itself); `source` names it in errors.
    public static func decode(_ bytes: [UInt8], source: String, maximumPixels: Int = defaultMaximumPixels) throws(FaceCamError) -> StillImage {
        let header = try announced(bytes, source: source, maximumPixels: maximumPixels)
        let cmyk = header.cmyk
        var size = header.size
        let orientedByDecoder = header.format == .tiff && header.orientation != nil
        if orientedByDecoder, header.orientation?.swapsAxes == true { size = PixelSize(width: size.height, height: size.width) }
        let image = { (frame: Frame) in
            StillImage(frame: frame, orientation: header.orientation, orientedByDecoder: orientedByDecoder)
        }
        switch header.format {
        case .jpeg where !cmyk:
            do {
                return image(try JPEG.decode(bytes, size: size))
            } catch {
                throw .undecodable(path: source, reason: "damaged or truncated JPEG (\(error.reason))")
            }
        case .png:
            // libpng would print its own complaint on stderr before OpenCV gives up.
            if let damage = PNGChunks.damage(in: bytes) { throw .undecodable(path: source, reason: damage) }
        default:
            // CMYK and YCCK JPEGs too: OpenCV converts those itself.
            break
        }
        return image(try decodeWithOpenCV(bytes, size: size, source: source))
    }

    /// Refuses a frame of more than `limit` pixels, naming `source`.
    public static func checkPixels(_ size: PixelSize, limit: Int, source: String) throws(FaceCamError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow || pixels > limit { throw .tooLarge(path: source, size: size, limit: limit) }
    }

    static func decodeWithOpenCV(_ bytes: [UInt8], size: PixelSize, source: String) throws(FaceCamError) -> Frame {
        var error = cfd_error()
        let frame = Frame.decoded(size: size) { pixels, stride in
            bytes.withUnsafeBufferPointer { data in
                cfd_decode_image_into(data.baseAddress, data.count, pixels, Int32(size.width), Int32(size.height), stride, &error)
            } == CFD_OK
        }
        guard let frame else {
            // OpenCV's own text for these is often an assertion message; say it plainly.
            throw error.mediaUnavailable(source)
                ?? .undecodable(path: source, reason: error.status == CFD_ERROR_DECODE ? error.text : "damaged (\(error.text))")
        }
        return frame
    }
}

/// A PNG's chunks (4-byte length, 4-byte type, data, 4-byte CRC of type and data), checked before libpng sees them.
enum PNGChunks {
    /// Why `bytes` are not a whole, undamaged PNG, or nil: every chunk's CRC is
    /// right and the last is IEND.
    static func damage(in bytes: [UInt8]) -> String? {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= Int(Int32.max), length <= bytes.count - offset - 12 else { break }
            let type = bytes[offset + 4..<offset + 8]
            let stored = bytes[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if crc32(bytes[offset + 4..<offset + 8 + length]) != stored {
                return "damaged PNG (its \(String(decoding: type, as: UTF8.self)) chunk fails its CRC check)"
            }
            if type.elementsEqual("IEND".utf8) { return nil }
            offset += 12 + length
        }
        return "truncated PNG (it ends before its IEND chunk)"
    }

    /// CRC-32 as PNG (and zlib) compute it.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc = UInt32.max
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }

    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
}

extension cfd_error {
    /// The shim's message.
    var text: String {
        withUnsafeBytes(of: message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// What a still-image or video call on `path` that failed for want of libFaceCamMedia.so throws, whatever it was
    /// given: nil when it failed otherwise.
    func mediaUnavailable(_ path: String) -> FaceCamError? {
        status == CFD_ERROR_MEDIA ? .mediaUnavailable(path: path, reason: text) : nil
    }
}
