#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One input opened for reading, whatever it is: a photograph, a video file or stream, a camera. Every
/// command's frames come from one, through the one input loop (`InputLoop`).
public protocol FrameSource: AnyObject {
    /// What reading a frame may throw: nothing for a photograph (read when opened), a camera's own errors.
    associatedtype Failure: Error
    /// How results and messages name it.
    var name: String { get }
    /// The size of its frames, as stored.
    var frameSize: PixelSize { get }
    /// What turns its frames upright, `given` the orientation the user gave (nil for none, or auto).
    func orientation(given: Orientation?) -> Orientation
    /// The orientation its results report, `given` the user's; nil for a source whose results report none.
    func reportedOrientation(given: Orientation?) -> Orientation?
    /// The next frame; nil when the source ended or `shouldStop` said stop.
    func next(shouldStop: () -> Bool) throws(Failure) -> SourceFrame?
    /// Buffers the source skipped as damaged.
    var skipped: Int { get }
    /// Once the source has ended: frames it lost to damage, its truncation, or that it held none.
    var damage: FaceCamError? { get }
}

extension FrameSource {
    public func orientation(given: Orientation?) -> Orientation { given ?? .up }
    public func reportedOrientation(given: Orientation?) -> Orientation? { nil }
    public var skipped: Int { 0 }
}

/// A frame as its source gives it.
public struct SourceFrame: Sendable {
    public var frame: Frame
    /// Its number in the source: a video's frame index, a camera's capture counter (the V4L2 sequence).
    public var index: Int
    /// Seconds since the source's first frame.
    public var time: Double
    /// When a live frame was taken, on CLOCK_MONOTONIC: the start of its latency; nil for files read as files.
    public var capturedAt: Double?

    public init(frame: Frame, index: Int, time: Double, capturedAt: Double? = nil) {
        self.frame = frame
        self.index = index
        self.time = time
        self.capturedAt = capturedAt
    }
}

/// A photograph: one frame, turned upright by its EXIF orientation unless the user gave one.
public final class StillImageSource: FrameSource {
    public let name: String
    private let image: StillImage
    private var read = false

    /// Reads and decodes `path` (`ImageFile.load`).
    public init(path: FilePath, maximumPixels: Int = ImageFile.defaultMaximumPixels) throws(FaceCamError) {
        name = path.description
        image = try ImageFile.load(path, maximumPixels: maximumPixels)
    }

    public var frameSize: PixelSize { image.frame.size }
    public var damage: FaceCamError? { nil }
    public func orientation(given: Orientation?) -> Orientation { given ?? image.uprightOrientation }
    public func reportedOrientation(given: Orientation?) -> Orientation? { given ?? image.orientation ?? .up }

    public func next(shouldStop: () -> Bool) throws(FaceCamError) -> SourceFrame? {
        guard !read else { return nil }
        read = true
        return SourceFrame(frame: image.frame, index: 0, time: 0)
    }
}

/// A video file or stream read as a file: every frame, or every `decodeEvery`th (the others skipped
/// without decoding), as fast as it decodes; turned upright by its rotation metadata, then the user's orientation.
public final class VideoFileSource: FrameSource {
    public let reader: VideoReader
    private let decodeEvery: Int

    public init(reader: VideoReader, decodeEvery: Int = 1) {
        self.reader = reader
        self.decodeEvery = decodeEvery
    }

    public var name: String { reader.path }
    public var frameSize: PixelSize { reader.info.size }
    public func orientation(given: Orientation?) -> Orientation { reader.info.rotation.followed(by: given ?? .up) }
    public var damage: FaceCamError? { reader.damage ?? (reader.lastIndex < 0 ? .emptyVideo(path: reader.path) : nil) }

    public func next(shouldStop: () -> Bool) throws(FaceCamError) -> SourceFrame? {
        while let read = try reader.next(decodeEvery: decodeEvery) {
            if let frame = read.frame { return SourceFrame(frame: frame, index: read.index, time: read.time) }
            // A stream's frames skipped undecoded still take their time to come: a stop is heard between them.
            if shouldStop() { return nil }
        }
        return nil
    }
}

/// A V4L2 camera.
public final class CameraSource: FrameSource {
    public let capture: V4L2Capture
    public let name: String
    private let timeout: Double
    /// What frames are stamped with (`capturedAt`) when the driver's timestamps are not monotonic, and what `timeout` is
    /// counted on.
    private let clock: any MonotonicClock
    private var firstTimestamp: Double?

    public init(capture: V4L2Capture, name: String, timeout: Double, clock: any MonotonicClock = SystemClock()) {
        self.capture = capture
        self.name = name
        self.timeout = timeout
        self.clock = clock
    }

    public var skipped: Int { capture.skippedBuffers }
    public var frameSize: PixelSize { capture.size }
    public var damage: FaceCamError? { nil }

    public func next(shouldStop: () -> Bool) throws(CaptureError) -> SourceFrame? {
        guard let captured = try capture.nextFrame(timeout: timeout, clock: clock, shouldStop: shouldStop) else { return nil }
        let first = firstTimestamp ?? captured.timestamp
        firstTimestamp = first
        return SourceFrame(
            frame: captured.frame, index: captured.sequence, time: captured.timestamp - first,
            capturedAt: captured.monotonic ? captured.timestamp : clock.now)
    }
}

/// A video file played as a camera (`live --source`): at its own frame rate when
/// `realtime`, else as fast as it decodes (a camera faster than the detector);
/// with `reopen`, played again from the start whenever it ends, frame numbers
/// and times going on as a camera's would. Its rotation metadata is not applied, as a camera has none.
public final class FileSource: FrameSource {
    private var reader: VideoReader
    private let realtime: Bool
    private let reopen: (() throws(FaceCamError) -> VideoReader)?
    /// What frames are stamped with (`capturedAt`) and, `realtime`, presented by.
    private let clock: any MonotonicClock
    private var start: Double?
    /// Frames and seconds played in the earlier rounds of a loop.
    private var played = (frames: 0, seconds: 0.0)

    public init(
        reader: VideoReader, realtime: Bool, reopen: (() throws(FaceCamError) -> VideoReader)? = nil,
        clock: any MonotonicClock = SystemClock()
    ) {
        self.reader = reader
        self.realtime = realtime
        self.reopen = reopen
        self.clock = clock
    }

    public var name: String { reader.path }
    public var frameSize: PixelSize { reader.info.size }
    public var damage: FaceCamError? { reader.damage }

    public func next(shouldStop: () -> Bool) throws(FaceCamError) -> SourceFrame? {
        var next = try reader.next()
        if next == nil, let reopen, reader.lastIndex >= 0 {
            // One frame's duration after the last frame, as the next round's first frame is shown.
            let last = reader.lastIndex
            let frameSeconds = reader.info.framesPerSecond > 0 ? 1 / reader.info.framesPerSecond : 1.0 / 30
            played.seconds += Double(last) * frameSeconds + frameSeconds
            played.frames += last + 1
            reader = try reopen()
            next = try reader.next()
        }
        guard let read = next, let frame = read.frame else { return nil }
        let (index, time) = (played.frames + read.index, played.seconds + read.time)
        let now = clock.now
        let start = self.start ?? now - time
        self.start = start
        guard realtime else { return SourceFrame(frame: frame, index: index, time: time, capturedAt: now) }
        // Present the frame at its time, waking often enough to notice a stop.
        let due = start + time
        while clock.now < due {
            if shouldStop() { return nil }
            clock.sleep(until: min(due, clock.now + Self.stopCheckInterval))
        }
        return SourceFrame(frame: frame, index: index, time: time, capturedAt: due)
    }

    /// How often a wait for a frame's time looks for a stop.
    static let stopCheckInterval = 0.05
}
