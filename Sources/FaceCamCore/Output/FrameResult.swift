/// What facecam found in one frame.
public struct FrameResult: Sendable {
    /// The input the frame came from (a path, or a device).
    public var source: String
    /// The frame's index within its source (0 for a still image).
    public var frame: Int
    /// Seconds since the source's first frame (0 for a still image).
    public var time: Double
    /// The buffer's size.
    public var size: PixelSize
    /// The preview the `preview` rects refer to.
    public var previewSize: PixelSize
    public var faces: [Face]
    /// The capture device's frame counter (live capture only): gaps are dropped frames.
    public var sequence: Int?
    /// The orientation that turned the image upright (still images only): its EXIF
    /// orientation, or the one given.
    public var orientation: Orientation?

    public init(
        source: String, frame: Int, time: Double, size: PixelSize, previewSize: PixelSize, faces: [Face],
        sequence: Int? = nil, orientation: Orientation? = nil
    ) {
        self.source = source
        self.frame = frame
        self.time = time
        self.size = size
        self.previewSize = previewSize
        self.faces = faces
        self.sequence = sequence
        self.orientation = orientation
    }
}

extension FrameResult {
    /// The name dataset formats and `facecam eval` give a frame as an image: its source for a still
    /// image or a video's first frame (frame 0 at time 0), `SOURCE#FRAME` for a video's later frames.
    public static func imageName(source: String, frame: Int, time: Double) -> String {
        isLaterFrame(frame: frame, time: time) ? "\(source)#\(frame)" : source
    }

    static func isLaterFrame(frame: Int, time: Double) -> Bool {
        frame != 0 || time != 0
    }

    var imageName: String { Self.imageName(source: source, frame: frame, time: time) }
}

/// Plain decimal text for a number: whole numbers without a fraction, others
/// with at most six decimals, never an exponent, never "-0".
public func decimal(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 {
        return String(Int64(value))
    }
    var text = String(format: "%.6f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text == "-0" ? "0" : text
}
