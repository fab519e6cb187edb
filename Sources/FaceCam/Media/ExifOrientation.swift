/// The orientation an image file's metadata asks for, found where OpenCV 4.6's
/// `cv::imread` looks for it, so that facecam turns a photograph exactly when imread does:
/// - JPEG: the Orientation tag (274) of the first APP1 "Exif" segment before the image data;
/// - PNG: the same tag in an eXIf chunk before the first IDAT chunk;
/// - TIFF: the Orientation tag of the first directory (which OpenCV's decoder applies itself).
///
/// WebP, BMP and PNM carry none that imread honours. A value outside 1-8 counts as none, as imread
/// then leaves the image as stored.
enum ExifOrientation {
    /// In a JPEG's segments before its first scan.
    static func inJPEG(_ bytes: [UInt8]) -> Orientation? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }  // no length
            if marker == 0xDA || marker == 0xD9 { return nil }  // the image data, or its end
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let payload = bytes[(offset + 4)..<(offset + 2 + length)]
            if marker == 0xE1, payload.starts(with: Array("Exif".utf8) + [0, 0]) {
                return inTIFF(payload.dropFirst(6))
            }
            offset += 2 + length
        }
        return nil
    }

    /// In a PNG's eXIf chunk, when one comes before the image data.
    static func inPNG(_ bytes: [UInt8]) -> Orientation? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length <= bytes.count - offset - 8 else { return nil }
            if type == "IDAT" || type == "IEND" { return nil }
            if type == "eXIf" { return inTIFF(bytes[offset + 8..<offset + 8 + length]) }
            offset += 12 + length
        }
        return nil
    }

    /// The Orientation tag of the first directory of a TIFF structure (a TIFF file, or EXIF data).
    static func inTIFF(_ tiff: ArraySlice<UInt8>) -> Orientation? {
        let start = tiff.startIndex
        guard tiff.count >= 8, tiff[start] == tiff[start + 1], tiff[start] == 0x49 || tiff[start] == 0x4D else { return nil }
        let bigEndian = tiff[start] == 0x4D
        /// `size` bytes at `offset` from the structure's start, or nil past its end.
        func number(_ offset: Int, _ size: Int) -> Int? {
            guard offset >= 0, offset <= tiff.count - size else { return nil }
            let slice = tiff[(start + offset)..<(start + offset + size)]
            return (bigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard number(2, 2) == 42, let directory = number(4, 4), let count = number(directory, 2) else { return nil }
        for index in 0..<min(count, tiff.count / 12) {
            let entry = directory + 2 + index * 12
            guard let tag = number(entry, 2) else { return nil }
            // A SHORT, stored in the entry itself.
            if tag == 274 {
                guard number(entry + 2, 2) == 3, let value = number(entry + 8, 2) else { return nil }
                return Orientation(rawValue: value)
            }
        }
        return nil
    }
}
