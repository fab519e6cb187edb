internal import CFaceDetect

/// A video file (or a stream: a URL, standard input) read frame by frame
/// through OpenCV's VideoCapture (FFmpeg back end), going on past damaged
/// frames as FFmpeg does.
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
        /// A rotation in the metadata that is not a quarter turn (clockwise degrees), which facecam does
        /// not apply: `rotation` is then `.up`. Nil when there is none.
        public var unappliedRotation: Int?
    }

    /// One frame read: its index in the file, its presentation time in seconds,
    /// and its pixels when it was decoded.
    public struct VideoFrame: Sendable {
        public var index: Int
        public var time: Double
        public var frame: Frame?
    }

    /// The largest frame read unless told otherwise: 40 megapixels, above 8K (8192x4320, 35.4). An 8K frame already
    /// takes about 2 GB in facecam (frames in flight, the search) and as much in the encoder redaction feeds.
    public static let defaultMaximumPixels = 40_000_000
    /// How long a stream may send nothing before reading gives up, unless told otherwise.
    public static let defaultTimeout = 10.0

    /// How results and messages name the input.
    public let path: String
    public let info: Info
    /// For streams: how long reading waits for data before giving up.
    private let timeout: Double?
    private let handle: OpaquePointer
    /// Indices of the frames that could not be read, in order.
    public private(set) var lostFrames: [Int] = []
    /// The index of the last frame read, or -1 before the first.
    public private(set) var lastIndex = -1

    /// Opens a regular file whose frames have at most `maximumPixels` pixels.
    public convenience init(path: FilePath, maximumPixels: Int = VideoReader.defaultMaximumPixels) throws(FaceCamError) {
        try self.init(input: .file(path), maximumPixels: maximumPixels)
    }

    /// Opens a regular file, or a stream, whose frames have at most `maximumPixels` pixels.
    /// A stream that sends nothing for `timeout` seconds fails to open, or ends reading
    /// with `FaceCamError.streamStalled`.
    public init(
        input: VideoInput, maximumPixels: Int = VideoReader.defaultMaximumPixels, timeout: Double = VideoReader.defaultTimeout
    ) throws(FaceCamError) {
        let name = input.description
        // A FIFO or a device blocks in open(2), which no timeout reaches: only regular files are read.
        if let path = input.localPath {
            let kind: FileKind
            do {
                kind = try fileStatus(path).kind
            } catch {
                throw .unreadable(error)
            }
            if kind == .directory { throw .directory(path: name) }
            guard kind == .regular else { throw .notARegularFile(path: name) }
        }
        let timeout = input.isStream ? timeout : nil
        var info = cfd_video_info()
        var error = cfd_error()
        let milliseconds = timeout.map { Int32(clamping: Int(($0 * 1000).rounded(.up))) } ?? 0
        guard let handle = input.withFFmpegName({ cfd_video_open($0, milliseconds, &info, &error) }) else {
            if error.status == CFD_ERROR_TIMEOUT { throw .streamStalled(source: name, afterFrame: nil, seconds: timeout ?? 0) }
            if let unavailable = error.mediaUnavailable(name) { throw unavailable }
            throw input.isStream
                ? .unreachableStream(source: name, reason: error.text)
                : .undecodableVideo(path: name, reason: error.text)
        }
        let size = PixelSize(width: Int(info.width), height: Int(info.height))
        do {
            try ImageFile.checkPixels(size, limit: maximumPixels, source: name)
        } catch {
            cfd_video_close(handle)
            throw error
        }
        self.path = name
        self.handle = handle
        self.timeout = timeout
        self.info = Info(
            size: size, framesPerSecond: info.frames_per_second, frameCount: Int(info.frame_count),
            rotation: Orientation(clockwiseRotation: Int(info.rotation)) ?? .up,
            unappliedRotation: Orientation(clockwiseRotation: Int(info.rotation)) == nil ? Int(info.rotation) : nil)
    }

    deinit { cfd_video_close(handle) }

    /// A warning for a rotation facecam does not apply, naming the input; nil when there is none.
    public var rotationWarning: String? {
        info.unappliedRotation.map {
            "warning: \(path): its metadata turns it \($0)° clockwise, not a quarter turn, which facecam does not apply: "
                + "frames and boxes are as stored (turn it with ffmpeg's rotate filter to detect it upright)"
        }
    }

    /// The next frame that can be read, or nil at the end. Frames whose index
    /// is a multiple of `decodeEvery` are decoded; the others are skipped cheaply.
    public func next(decodeEvery: Int = 1) throws(FaceCamError) -> VideoFrame? {
        var read = cfd_video_frame()
        var error = cfd_error()
        var status = CFD_OK
        let frame = Frame.decoded(size: info.size) { pixels, stride in
            status = cfd_video_read(handle, Int32(clamping: decodeEvery), pixels, stride, &read, &error)
            return status == CFD_OK && read.decoded != 0
        }
        switch status {
        case CFD_END_OF_STREAM:
            return nil
        case CFD_OK:
            let index = Int(read.index)
            lostFrames += (index - Int(read.lost))..<index
            lastIndex = index
            return VideoFrame(index: index, time: read.time, frame: frame)
        case CFD_ERROR_TIMEOUT:
            throw .streamStalled(source: path, afterFrame: lastIndex, seconds: timeout ?? 0)
        default:
            throw .videoFrame(path: path, frame: lastIndex + 1, reason: error.text)
        }
    }

    /// Once reading has ended: what was lost, as one error, or nil when nothing
    /// was. Frames that could not be decoded in the middle are named; a file that
    /// ends before its announced frame count, with FFmpeg reporting errors, is
    /// called truncated.
    public var damage: FaceCamError? {
        // A count is often an estimate (Matroska's, from a duration that audio or another stream may
        // stretch; an edited MP4's, which counts frames before its start): ending short of it is
        // damage only when FFmpeg's demuxer or decoder said something was wrong.
        let missingAtEnd = lastIndex + 1 < info.frameCount && cfd_video_reported_errors(handle) > 0
        let skipped = lostFrames.filter { $0 <= lastIndex }
        guard !skipped.isEmpty || missingAtEnd else { return nil }
        var parts: [String] = []
        if !skipped.isEmpty {
            parts.append("\(skipped.count == 1 ? "frame" : "frames") \(Self.ranges(skipped)) could not be decoded "
                + "(damaged) and \(skipped.count == 1 ? "was" : "were") skipped")
        }
        if missingAtEnd {
            parts.append(lastIndex < 0
                ? "no frame can be read, but the file announces \(info.frameCount): truncated or damaged"
                : "no frame can be read after frame \(lastIndex), but the file announces \(info.frameCount): truncated or damaged")
        }
        return .videoDamaged(path: path, reason: parts.joined(separator: "; "))
    }

    /// "3, 7-9, 12" for [3, 7, 8, 9, 12].
    static func ranges(_ indices: [Int]) -> String {
        var parts: [String] = []
        var start = indices.first ?? 0, end = start
        for index in indices.dropFirst() + [Int.min] {
            if index == end + 1 { end = index; continue }
            parts.append(start == end ? "\(start)" : "\(start)-\(end)")
            (start, end) = (index, index)
        }
        return indices.isEmpty ? "" : parts.joined(separator: ", ")
    }
}

extension VideoInput {
    /// How long after the file's earliest stream (its audio, say) its video starts, in seconds: the
    /// times `VideoReader` gives count from the video's start, so a copy of the audio needs this to
    /// stay in step. 0 for what is not a file (it cannot be read twice) and when the file does not say.
    public var videoStartOffset: Double {
        guard case .file = self else { return 0 }
        var seconds = 0.0
        var error = cfd_error()
        return withFFmpegName { cfd_video_start_offset($0, &seconds, &error) } == CFD_OK ? seconds : 0
    }
}

/// An annotated video written by OpenCV (MJPEG in .avi and .mkv, MPEG-4 in .mp4 and .mov); it grows
/// in place, so a run that stops early leaves the frames written so far playable.
public final class VideoWriter: FrameOutput {
    public let path: String
    public let size: PixelSize
    /// Nil once finished.
    private var handle: OpaquePointer?

    public init(path: String, size: PixelSize, framesPerSecond: Double) throws(FaceCamError) {
        var error = cfd_error()
        guard let handle = cfd_video_writer_open(path, Int32(size.width), Int32(size.height), framesPerSecond, &error) else {
            throw error.mediaUnavailable(path) ?? .annotatedVideo(path: path, reason: error.text)
        }
        self.path = path
        self.size = size
        self.handle = handle
    }

    deinit { try? finish() }

    public func append(_ frame: Frame, time: Double) throws(FaceCamError) {
        guard let handle else { throw .annotatedVideo(path: path, reason: "the video is finished") }
        var error = cfd_error()
        let status = frame.withImageView { cfd_video_writer_write(handle, &$0, &error) }
        guard status == CFD_OK else { throw .annotatedVideo(path: path, reason: error.text) }
    }

    /// Writes the container's index, so that the video plays.
    public func finish() throws(FaceCamError) {
        if let handle { cfd_video_writer_close(handle) }
        handle = nil
    }
}

/// OpenCV's own thread pool, which detectMultiScale spreads each frame's scales over.
public enum OpenCVThreads {
    public static var count: Int {
        get { Int(cfd_opencv_threads()) }
        set { cfd_set_opencv_threads(Int32(clamping: newValue)) }
    }

    /// The cores this process may run on: its CPU affinity (taskset, a scheduler's binding) and the
    /// cgroup limits OpenCV reads, not merely the machine's cores; what --jobs defaults to.
    public static var usableCores: Int { Int(cfd_usable_cpus()) }

    /// Runs BLAS (OpenBLAS, which OpenCV and dlib load) on the calling thread and stops its pool, whose workers spin
    /// for about 0.1 s of CPU at start and after every call: facecam parallelises by its own jobs. Left alone when
    /// OPENBLAS_NUM_THREADS is set. Call it first, before any other thread runs.
    public static func runBLASOnCaller() { cfd_run_blas_on_caller() }
}
