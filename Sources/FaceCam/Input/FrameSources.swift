#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where live frames come from: a camera, or a video file played as one.
public protocol LiveSource: AnyObject {
    /// The next frame, or nil when the source ended or `shouldStop` said stop.
    func next(shouldStop: () -> Bool) throws -> LiveFrame?
    /// Buffers the source skipped as damaged.
    var skipped: Int { get }
    /// The size of its frames, as stored.
    var frameSize: PixelSize { get }
    /// Once the source has ended: frames a video file lost to damage, or its truncation.
    var damage: FaceCamError? { get }
}

/// A V4L2 camera.
public final class CameraSource: LiveSource {
    public let capture: V4L2Capture
    private let timeout: Double
    private var firstTimestamp: Double?

    public init(capture: V4L2Capture, timeout: Double) {
        self.capture = capture
        self.timeout = timeout
    }

    public var skipped: Int { capture.skippedBuffers }
    public var frameSize: PixelSize { capture.size }
    public var damage: FaceCamError? { nil }

    public func next(shouldStop: () -> Bool) throws -> LiveFrame? {
        guard let captured = try capture.nextFrame(timeout: timeout, shouldStop: shouldStop) else { return nil }
        let first = firstTimestamp ?? captured.timestamp
        firstTimestamp = first
        return LiveFrame(
            frame: captured.frame, sequence: captured.sequence, time: captured.timestamp - first,
            capturedAt: captured.monotonic ? captured.timestamp : monotonicSeconds())
    }
}

/// A video file played through the live path: at its own frame rate when
/// `realtime`, else as fast as it decodes (a camera faster than the detector);
/// with `reopen`, played again from the start whenever it ends, frame numbers
/// and times going on as a camera's would.
public final class FileSource: LiveSource {
    private var reader: VideoReader
    private let realtime: Bool
    private let reopen: (() throws(FaceCamError) -> VideoReader)?
    private var start: Double?
    /// Frames and seconds played in the earlier rounds of a loop.
    private var played = (frames: 0, seconds: 0.0)

    public init(reader: VideoReader, realtime: Bool, reopen: (() throws(FaceCamError) -> VideoReader)? = nil) {
        self.reader = reader
        self.realtime = realtime
        self.reopen = reopen
    }

    public var skipped: Int { 0 }
    public var frameSize: PixelSize { reader.info.size }
    public var damage: FaceCamError? { reader.damage }

    public func next(shouldStop: () -> Bool) throws -> LiveFrame? {
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
        let now = monotonicSeconds()
        let start = self.start ?? now - time
        self.start = start
        guard realtime else { return LiveFrame(frame: frame, sequence: index, time: time, capturedAt: now) }
        // Present the frame at its time, waking often enough to notice a stop.
        let due = start + time
        while monotonicSeconds() < due {
            if shouldStop() { return nil }
            sleepSeconds(min(0.05, due - monotonicSeconds()))
        }
        return LiveFrame(frame: frame, sequence: index, time: time, capturedAt: due)
    }
}

private func sleepSeconds(_ seconds: Double) {
    guard seconds > 0 else { return }
    var remaining = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var left = timespec()
    while nanosleep(&remaining, &left) != 0 && errno == EINTR { remaining = left }
}
