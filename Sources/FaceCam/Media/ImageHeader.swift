/// The format and size an image file announces, read from its first bytes
/// before anything is decoded, so that a size beyond the limits is refused
/// before any pixel is allocated (a decompression bomb is a small file that
/// claims a huge image).
public struct ImageHeader: Hashable, Sendable {
    /// The formats facecam decodes: JPEG through libjpeg, the others through OpenCV.
    public enum Format: String, Sendable, CaseIterable {
        case jpeg = "JPEG", png = "PNG", bmp = "BMP", tiff = "TIFF", webp = "WebP", pnm = "PNM"
    }

    public var format: Format
    public var width: Int
    public var height: Int
    /// What the file's metadata says turns it upright, where `cv::imread` honours it
    /// (see `ExifOrientation`); nil when it says nothing.
    public var orientation: Orientation?

    public init(format: Format, width: Int, height: Int, orientation: Orientation? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
    }

    public var pixels: Int { width * height }

    /// What the header of `bytes` says, or nil when they do not start like one
    /// of the formats, or the header is cut short. JPEG's header is read by
    /// libjpeg itself (see `JPEG`), so for JPEG only the format is told here,
    /// with a size of 0 x 0.
    public static func read(_ bytes: [UInt8]) -> ImageHeader? {
        let reader = ByteReader(bytes)
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            return ImageHeader(format: .jpeg, width: 0, height: 0, orientation: ExifOrientation.inJPEG(bytes))
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            // The first chunk must be IHDR: width and height as 4-byte big-endian numbers.
            guard reader.ascii(12, 4) == "IHDR", let width = reader.uint(16, 4, bigEndian: true),
                  let height = reader.uint(20, 4, bigEndian: true) else { return nil }
            return ImageHeader(format: .png, width: width, height: height, orientation: ExifOrientation.inPNG(bytes))
        }
        if bytes.starts(with: Array("BM".utf8)) {
            guard let headerSize = reader.uint(14, 4, bigEndian: false) else { return nil }
            if headerSize == 12 {
                guard let width = reader.uint(18, 2, bigEndian: false), let height = reader.uint(20, 2, bigEndian: false) else { return nil }
                return ImageHeader(format: .bmp, width: width, height: height)
            }
            // Signed; a negative height means the rows are stored top-down.
            guard let width = reader.int32(18), let height = reader.int32(22) else { return nil }
            return ImageHeader(format: .bmp, width: abs(width), height: abs(height))
        }
        if bytes.starts(with: [0x49, 0x49]) || bytes.starts(with: [0x4D, 0x4D]) { return tiff(reader) }
        if reader.ascii(0, 4) == "RIFF", reader.ascii(8, 4) == "WEBP" { return webp(reader) }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]) {
            return pnm(bytes)
        }
        return nil
    }

    /// TIFF and BigTIFF: the ImageWidth (256) and ImageLength (257) tags of the first directory.
    private static func tiff(_ reader: ByteReader) -> ImageHeader? {
        let bigEndian = reader.bytes[0] == 0x4D
        guard let version = reader.uint(2, 2, bigEndian: bigEndian) else { return nil }
        let big = version == 43
        guard version == 42 || big else { return nil }
        guard let directory = big ? reader.uint(8, 8, bigEndian: bigEndian) : reader.uint(4, 4, bigEndian: bigEndian),
              let count = reader.uint(directory, big ? 8 : 2, bigEndian: bigEndian) else { return nil }
        let first = directory + (big ? 8 : 2), entrySize = big ? 20 : 12
        var width: Int?, height: Int?
        // A directory lists its entries in the file; no more than the file can hold are read.
        for index in 0..<min(count, reader.bytes.count / entrySize) {
            let entry = first + index * entrySize
            guard let tag = reader.uint(entry, 2, bigEndian: bigEndian), let type = reader.uint(entry + 2, 2, bigEndian: bigEndian)
            else { return nil }
            guard tag == 256 || tag == 257 else { continue }
            let value = entry + (big ? 12 : 8)
            // SHORT, LONG or LONG8, stored in the entry itself.
            let size = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0
            guard size > 0, let number = reader.uint(value, size, bigEndian: bigEndian) else { return nil }
            if tag == 256 { width = number } else { height = number }
        }
        guard let width, let height else { return nil }
        return ImageHeader(format: .tiff, width: width, height: height, orientation: big ? nil : ExifOrientation.inTIFF(reader.bytes[...]))
    }

    /// WebP's first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X).
    private static func webp(_ reader: ByteReader) -> ImageHeader? {
        switch reader.ascii(12, 4) {
        case "VP8 ":
            guard reader.bytes.count >= 30, reader.bytes[23...25].elementsEqual([0x9D, 0x01, 0x2A]),
                  let width = reader.uint(26, 2, bigEndian: false), let height = reader.uint(28, 2, bigEndian: false)
            else { return nil }
            return ImageHeader(format: .webp, width: width & 0x3FFF, height: height & 0x3FFF)
        case "VP8L":
            guard reader.bytes.count >= 25, reader.bytes[20] == 0x2F, let bits = reader.uint(21, 4, bigEndian: false)
            else { return nil }
            return ImageHeader(format: .webp, width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            guard let width = reader.uint(24, 3, bigEndian: false), let height = reader.uint(27, 3, bigEndian: false)
            else { return nil }
            return ImageHeader(format: .webp, width: width + 1, height: height + 1)
        default:
            return nil
        }
    }

    /// PBM, PGM, PPM (P1-P6: width and height after the magic, among white space and comments) and PAM (P7: WIDTH and HEIGHT lines).
    private static func pnm(_ bytes: [UInt8]) -> ImageHeader? {
        // Headers are short: a few hundred bytes hold any honest one.
        var tokens: [String] = []
        var token = ""
        var comment = false
        for byte in bytes.prefix(1024).dropFirst(2) {
            if comment {
                if byte == 0x0A || byte == 0x0D { comment = false }
                continue
            }
            if byte == UInt8(ascii: "#") {
                comment = true
            } else if byte == 0x20 || (0x09...0x0D).contains(byte) {
                if !token.isEmpty { tokens.append(token); token = "" }
            } else {
                token.unicodeScalars.append(Unicode.Scalar(byte))
            }
            if tokens.count >= 16 || tokens.last == "ENDHDR" { break }
        }
        let number = { (text: String?) -> Int? in text.flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil } }
        if bytes[1] == UInt8(ascii: "7") {
            guard let w = tokens.firstIndex(of: "WIDTH"), let h = tokens.firstIndex(of: "HEIGHT"),
                  let width = number(tokens.dropFirst(w + 1).first), let height = number(tokens.dropFirst(h + 1).first)
            else { return nil }
            return ImageHeader(format: .pnm, width: width, height: height)
        }
        guard tokens.count >= 2, let width = number(tokens[0]), let height = number(tokens[1]) else { return nil }
        return ImageHeader(format: .pnm, width: width, height: height)
    }
}

/// Bounds-checked reads of unsigned numbers and ASCII text from a byte array.
private struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `count` (1...8) bytes at `offset` as an unsigned number, or nil past the end or beyond Int's range.
    func uint(_ offset: Int, _ count: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, count <= bytes.count, offset <= bytes.count - count else { return nil }
        let slice = bytes[offset..<offset + count]
        let value = (bigEndian ? Array(slice) : slice.reversed()).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    func int32(_ offset: Int) -> Int? {
        uint(offset, 4, bigEndian: false).map { Int(Int32(truncatingIfNeeded: $0)) }
    }

    func ascii(_ offset: Int, _ count: Int) -> String? {
        guard offset >= 0, offset <= bytes.count - count else { return nil }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
}
