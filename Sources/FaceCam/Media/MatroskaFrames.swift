/// Uncompressed BGRA frames in a Matroska stream (`V_UNCOMPRESSED`, colour space "BGRA"), each with
/// its presentation time: how `VideoEncoder` hands ffmpeg frames without losing their timing, which
/// raw video on a pipe (a fixed rate) would. The segment's size is unknown (it streams); each frame is
/// a cluster of its own, its time in microseconds.
enum MatroskaFrames {
    /// The EBML header, the segment's start, its info and its one video track.
    static func header(size: PixelSize) -> [UInt8] {
        let ebml = element(0x1A45DFA3, [
            element(0x4286, unsigned(1)), element(0x42F7, unsigned(1)), element(0x42F2, unsigned(4)),
            element(0x42F3, unsigned(8)), element(0x4282, Array("matroska".utf8)), element(0x4287, unsigned(4)),
            element(0x4285, unsigned(2)),
        ].flatMap { $0 })
        // Timestamps in microseconds.
        let info = element(0x1549A966, element(0x2AD7B1, unsigned(1000)) + element(0x4D80, Array("facecam".utf8)))
        let video = element(0xE0, element(0xB0, unsigned(UInt64(size.width))) + element(0xBA, unsigned(UInt64(size.height)))
            + element(0x2EB524, Array("BGRA".utf8)))
        let track = element(0xAE, [
            element(0xD7, unsigned(1)), element(0x73C5, unsigned(1)), element(0x83, unsigned(1)),
            element(0x86, Array("V_UNCOMPRESSED".utf8)), video,
        ].flatMap { $0 })
        let unknownSize: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        return ebml + id(0x18538067) + unknownSize + info + element(0x1654AE6B, track)
    }

    /// What comes before a frame's `byteCount` pixel bytes: its cluster, at `time` seconds (0 or more),
    /// and the start of its block.
    static func frameHeader(time: Double, byteCount: Int) -> [UInt8] {
        let microseconds = UInt64(max(0, (time * 1_000_000).rounded()))
        // The block: track 1, 0 from the cluster's time, a keyframe.
        let blockStart: [UInt8] = [0x81, 0x00, 0x00, 0x80]
        let block = id(0xA3) + size(blockStart.count + byteCount) + blockStart
        let timestamp = element(0xE7, unsigned(microseconds))
        return id(0x1F43B675) + size(timestamp.count + block.count + byteCount) + timestamp + block
    }

    private static func element(_ identifier: UInt32, _ payload: [UInt8]) -> [UInt8] {
        id(identifier) + size(payload.count) + payload
    }

    /// An element ID as written: its bytes without leading zeros (the ID carries its own length marker).
    private static func id(_ identifier: UInt32) -> [UInt8] {
        let bytes = withUnsafeBytes(of: identifier.bigEndian, Array.init)
        return Array(bytes.drop { $0 == 0 })
    }

    /// An element size: an EBML variable-length integer, always eight bytes (simplest, and enough for any frame).
    private static func size(_ count: Int) -> [UInt8] {
        [0x01] + withUnsafeBytes(of: UInt64(count).bigEndian, Array.init).dropFirst()
    }

    private static func unsigned(_ value: UInt64) -> [UInt8] {
        let bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
        let significant = Array(bytes.drop { $0 == 0 })
        return significant.isEmpty ? [0] : significant
    }
}
