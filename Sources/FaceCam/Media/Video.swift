internal import CFaceDetect

/// A video file read frame by frame through OpenCV's VideoCapture (FFmpeg back end).
public final class VideoReader {
    public struct Info: Sendable {
        /// The frames' size as stored, before any rotation.
        public var size: PixelSize
        /// 0 when the container does not say.
        public var framesPerSecond: Double
        /// The container's frame count or estimate; 0 when unknown.
        public var frameCount: Int
        /// How a player turns the frames to show them, from the file's rotation metadata.
        public var rotation: Orientation
    }

    public let path: String
    public let info: Info
    private let handle: OpaquePointer
    /// Index of the next frame `next` returns.
    public private(set) var nextIndex = 0

    public init(path: String) throws(FaceCamError) {
        let kind: FileKind
        do {
            kind = try fileKind(path)
        } catch {
            throw .unreadable(error)
        }
        guard kind == .regular else { throw .undecodableVideo(path: path, reason: "not a regular file") }
        var info = cfd_video_info()
        var error = cfd_error()
        guard let handle = cfd_video_open(path, &info, &error) else {
            throw .undecodableVideo(path: path, reason: error.text)
        }
        self.path = path
        self.handle = handle
        self.info = Info(
            size: PixelSize(width: Int(info.width), height: Int(info.height)),
            framesPerSecond: info.frames_per_second, frameCount: Int(info.frame_count),
            rotation: Orientation(clockwiseRotation: Int(info.rotation)) ?? .up)
    }

    deinit { cfd_video_close(handle) }

    /// The next frame and its presentation time in seconds, or nil at the end.
    /// With `decode` false the frame is skipped: only its time is returned.
    public func next(decode: Bool) throws(FaceCamError) -> (frame: Frame?, time: Double)? {
        let index = nextIndex
        var time = 0.0
        var error = cfd_error()
        var pixels = decode ? [UInt8](repeating: 0, count: info.size.width * info.size.height * 4) : []
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            cfd_video_read(handle, decode ? 1 : 0, buffer.baseAddress, info.size.width * 4, &time, &error)
        }
        switch status {
        case CFD_END_OF_STREAM:
            return nil
        case CFD_OK:
            nextIndex += 1
            let frame = decode
                ? Frame(width: info.size.width, height: info.size.height, bytesPerRow: info.size.width * 4, pixels: pixels)
                : nil
            return (frame, time)
        default:
            throw .videoFrame(path: path, frame: index, reason: error.text)
        }
    }
}

/// An annotated video being written (MJPEG in .avi and .mkv, MPEG-4 in .mp4 and .mov).
public final class VideoWriter {
    public let path: String
    public let size: PixelSize
    private let handle: OpaquePointer

    public init(path: String, size: PixelSize, framesPerSecond: Double) throws(FaceCamError) {
        var error = cfd_error()
        guard let handle = cfd_video_writer_open(path, Int32(size.width), Int32(size.height), framesPerSecond, &error) else {
            throw .annotation(path: path, reason: error.text)
        }
        self.path = path
        self.size = size
        self.handle = handle
    }

    deinit { cfd_video_writer_close(handle) }

    public func append(_ frame: Frame) throws(FaceCamError) {
        var error = cfd_error()
        let status = frame.pixels.withUnsafeBufferPointer { pixels in
            var view = cfd_image_view(
                pixels: pixels.baseAddress, width: Int32(frame.width), height: Int32(frame.height), stride: frame.bytesPerRow)
            return cfd_video_writer_write(handle, &view, &error)
        }
        guard status == CFD_OK else { throw .annotation(path: path, reason: error.text) }
    }
}

/// OpenCV's own thread pool, which detectMultiScale spreads each frame's scales over.
public enum OpenCVThreads {
    public static var count: Int {
        get { Int(cfd_opencv_threads()) }
        set { cfd_set_opencv_threads(Int32(clamping: newValue)) }
    }
}

extension Orientation {
    /// The orientation for a player's clockwise turn of 0, 90, 180 or 270 degrees.
    public init?(clockwiseRotation degrees: Int) {
        switch degrees {
        case 0: self = .up
        case 90: self = .right
        case 180: self = .down
        case 270: self = .left
        default: return nil
        }
    }

    /// The single orientation that does `self`, then `next` to the result.
    public func followed(by next: Orientation) -> Orientation {
        // A 2x1 buffer tells all eight apart.
        let buffer = Size(width: 2, height: 1)
        let upright = swapsAxes ? Size(width: 1, height: 2) : buffer
        let combined = transform(for: buffer).followed(by: next.transform(for: upright))
        return Orientation.allCases.first { $0.transform(for: buffer) == combined }!
    }
}
