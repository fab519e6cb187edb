#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect
internal import CV4L2

/// The camera pixel format to capture in.
public enum CapturePixelFormat: String, CaseIterable, Sendable {
    /// Whatever the camera offers, converted to BGR24 by libv4l2.
    case auto
    /// Motion JPEG, decoded by libjpeg.
    case mjpeg
    /// YUYV 4:2:2, converted by OpenCV.
    case yuyv
    /// UYVY 4:2:2, converted by OpenCV.
    case uyvy

    var fourcc: UInt32 {
        switch self {
        case .auto: CV4L2_PIX_FMT_BGR24
        case .mjpeg: CV4L2_PIX_FMT_MJPEG
        case .yuyv: CV4L2_PIX_FMT_YUYV
        case .uyvy: CV4L2_PIX_FMT_UYVY
        }
    }
}

/// What to ask the camera for; nil keeps the camera's current setting.
public struct CaptureRequest: Sendable {
    public var size: PixelSize?
    public var framesPerSecond: Int?
    public var pixelFormat: CapturePixelFormat

    public init(size: PixelSize? = nil, framesPerSecond: Int? = nil, pixelFormat: CapturePixelFormat = .auto) {
        self.size = size
        self.framesPerSecond = framesPerSecond
        self.pixelFormat = pixelFormat
    }
}

/// A frame as the camera delivered it.
public struct CapturedFrame: Sendable {
    public var frame: Frame
    /// The driver's frame counter: gaps are frames the driver or facecam dropped.
    public var sequence: Int
    /// The buffer's timestamp in seconds; on CLOCK_MONOTONIC when `monotonic`.
    public var timestamp: Double
    public var monotonic: Bool
}

/// A V4L2 capture device, streaming through memory-mapped buffers.
///
/// Setup runs open, QUERYCAP, v4l2_fd_open, S_FMT (then G_FMT), S_PARM (then G_PARM),
/// REQBUFS, QUERYBUF and mmap, QBUF and STREAMON; teardown runs the reverse
/// (STREAMOFF, munmap, REQBUFS 0, close) on every path, from its `MappedDeviceStream`'s
/// `deinit`, including when setup fails half-way.
public final class V4L2Capture {
    public let path: String
    /// The size, format and rate the driver settled on, which may differ from the request.
    public private(set) var size = PixelSize(width: 0, height: 0)
    public private(set) var fourcc: UInt32 = 0
    public private(set) var framesPerSecond: Double?
    /// Differences between the request and what the driver chose, as sentences.
    public private(set) var adjustments: [String] = []
    /// Buffers the driver flagged as damaged or empty, re-queued unread.
    public private(set) var skippedBuffers = 0

    private let stream: MappedDeviceStream
    private var driver: VideoDeviceDriver { stream.driver }
    private var descriptor: Int32 { stream.descriptor }
    private var bytesPerLine = 0

    public convenience init(path: String, request: CaptureRequest) throws(CaptureError) {
        try self.init(path: path, request: request, driver: LibV4L2())
    }

    init(path: String, request: CaptureRequest, driver: VideoDeviceDriver, bufferCount: UInt32 = 4) throws(CaptureError) {
        self.path = path
        stream = MappedDeviceStream(path: path, driver: driver, type: CV4L2_BUF_TYPE_VIDEO_CAPTURE)
        try stream.open { .notACaptureDevice(path: path, reason: $0) }
        try checkCapabilities()
        try negotiateFormat(request)
        try negotiateRate(request.framesPerSecond)
        try stream.mapBuffers(count: bufferCount, minimum: 2)
        for index in stream.buffers.indices {
            var buffer = stream.buffer(index: UInt32(index))
            try call("VIDIOC_QBUF", CV4L2_VIDIOC_QBUF, &buffer)
        }
        try stream.streamOn()
    }

    /// Waits up to `timeout` seconds of `clock` for the next good frame, in slices of
    /// `slice` seconds so that `shouldStop` is asked often; nil when it says stop.
    public func nextFrame(
        timeout: Double, clock: any MonotonicClock = SystemClock(), slice: Double = 0.1, shouldStop: () -> Bool
    ) throws(CaptureError) -> CapturedFrame? {
        // The deadline counts the buffers skipped as unusable too: a camera sending nothing else has sent no frame.
        let deadline = clock.now + timeout
        while !shouldStop() {
            let ready: Int32
            do {
                ready = try blocking("poll") { driver.poll(descriptor, timeoutMilliseconds: Int32(slice * 1000)) }
            } catch {
                throw .from(error)
            }
            if ready != 0, let frame = try dequeue() { return frame }
            if clock.now >= deadline { throw .timeout(path: path, seconds: timeout) }
        }
        return nil
    }

    // MARK: Setup

    private func checkCapabilities() throws(CaptureError) {
        let caps = try captureCapabilities(descriptor: descriptor, driver: driver, path: path)
        guard caps & CV4L2_CAP_STREAMING != 0 else {
            throw .notACaptureDevice(path: path, reason: "it cannot stream")
        }
        do {
            try blocking("v4l2_fd_open") { driver.attach(descriptor) }
        } catch {
            throw .from(error)
        }
    }

    private func negotiateFormat(_ request: CaptureRequest) throws(CaptureError) {
        var format = v4l2_format()
        format.type = CV4L2_BUF_TYPE_VIDEO_CAPTURE
        try call("VIDIOC_G_FMT", CV4L2_VIDIOC_G_FMT, &format)
        let wanted = request.size ?? PixelSize(width: Int(format.fmt.pix.width), height: Int(format.fmt.pix.height))
        format.fmt.pix.width = UInt32(clamping: wanted.width)
        format.fmt.pix.height = UInt32(clamping: wanted.height)
        format.fmt.pix.pixelformat = request.pixelFormat.fourcc
        format.fmt.pix.field = CV4L2_FIELD_ANY
        format.fmt.pix.bytesperline = 0
        try call("VIDIOC_S_FMT", CV4L2_VIDIOC_S_FMT, &format)
        // What counts is what the driver settled on: read it back.
        try call("VIDIOC_G_FMT", CV4L2_VIDIOC_G_FMT, &format)
        let pix = format.fmt.pix
        guard pix.pixelformat == request.pixelFormat.fourcc else {
            throw .unsupportedFormat(path: path, requested: fourccName(request.pixelFormat.fourcc), offered: nativeFormats())
        }
        size = PixelSize(width: Int(pix.width), height: Int(pix.height))
        fourcc = pix.pixelformat
        bytesPerLine = Int(pix.bytesperline)
        guard size.width > 0, size.height > 0 else {
            throw .notACaptureDevice(path: path, reason: "it reports an empty frame size")
        }
        if bytesPerLine == 0 { bytesPerLine = size.width * bytesPerPixel }
        if let requested = request.size, requested != size {
            adjustments.append("\(path) captures \(size), not the \(requested) asked for")
        }
    }

    private func negotiateRate(_ requested: Int?) throws(CaptureError) {
        var parameters = v4l2_streamparm()
        parameters.type = CV4L2_BUF_TYPE_VIDEO_CAPTURE
        guard (try? call("VIDIOC_G_PARM", CV4L2_VIDIOC_G_PARM, &parameters)) != nil else {
            if let requested { adjustments.append("\(path) cannot report its frame rate; the \(requested) frames/s asked for are not set") }
            return
        }
        if let requested {
            if parameters.parm.capture.capability & CV4L2_CAP_TIMEPERFRAME != 0 {
                parameters.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: UInt32(requested))
                try call("VIDIOC_S_PARM", CV4L2_VIDIOC_S_PARM, &parameters)
                try call("VIDIOC_G_PARM", CV4L2_VIDIOC_G_PARM, &parameters)
            } else {
                adjustments.append("\(path) does not let its frame rate be set; the \(requested) frames/s asked for are ignored")
            }
        }
        let period = parameters.parm.capture.timeperframe
        framesPerSecond = period.numerator > 0 ? Double(period.denominator) / Double(period.numerator) : nil
        if let requested, let framesPerSecond, abs(framesPerSecond - Double(requested)) > 0.01 {
            adjustments.append("\(path) captures at \(decimal(framesPerSecond)) frames/s, not the \(requested) asked for")
        }
    }

    // MARK: Streaming

    /// One DQBUF: a converted frame, or nil when no buffer was ready or it was unusable.
    private func dequeue() throws(CaptureError) -> CapturedFrame? {
        guard let buffer = try stream.dequeue() else { return nil }
        let buffers = stream.buffers
        defer {
            var requeue = stream.buffer(index: buffer.index)
            _ = try? call("VIDIOC_QBUF", CV4L2_VIDIOC_QBUF, &requeue)
        }
        guard buffer.flags & CV4L2_BUF_FLAG_ERROR == 0, buffer.bytesused > 0, Int(buffer.index) < buffers.count else {
            skippedBuffers += 1
            return nil
        }
        let frame: Frame
        do {
            frame = try convert(UnsafeRawBufferPointer(
                start: buffers[Int(buffer.index)].address,
                count: min(Int(buffer.bytesused), buffers[Int(buffer.index)].length)))
        } catch {
            // A frame the decoder cannot read (a damaged MJPEG frame) is skipped like a flagged one.
            skippedBuffers += 1
            return nil
        }
        let time = Double(buffer.timestamp.tv_sec) + Double(buffer.timestamp.tv_usec) / 1_000_000
        let monotonic = buffer.flags & CV4L2_BUF_FLAG_TIMESTAMP_MASK == CV4L2_BUF_FLAG_TIMESTAMP_MONOTONIC
        return CapturedFrame(frame: frame, sequence: Int(buffer.sequence), timestamp: time, monotonic: monotonic)
    }

    private var bytesPerPixel: Int {
        switch fourcc {
        case CV4L2_PIX_FMT_YUYV, CV4L2_PIX_FMT_UYVY: 2
        case CV4L2_PIX_FMT_MJPEG, CV4L2_PIX_FMT_JPEG: 0
        default: 3
        }
    }

    private func convert(_ bytes: UnsafeRawBufferPointer) throws(FaceCamError) -> Frame {
        if fourcc == CV4L2_PIX_FMT_MJPEG || fourcc == CV4L2_PIX_FMT_JPEG {
            let frame = try ImageFile.decode(Array(bytes), source: path).frame
            guard frame.size == size else {
                throw .videoFrame(path: path, frame: 0, reason: "MJPEG frame of \(frame.size), not \(size)")
            }
            return frame
        }
        let layout: cfd_pixel_layout = switch fourcc {
        case CV4L2_PIX_FMT_YUYV: CFD_PIXELS_YUYV
        case CV4L2_PIX_FMT_UYVY: CFD_PIXELS_UYVY
        case CV4L2_PIX_FMT_RGB24: CFD_PIXELS_RGB24
        default: CFD_PIXELS_BGR24
        }
        guard bytes.count >= bytesPerLine * (size.height - 1) + size.width * bytesPerPixel else {
            throw .videoFrame(path: path, frame: 0, reason: "short buffer")
        }
        var frame = Frame(width: size.width, height: size.height)
        var error = cfd_error()
        let status = frame.pixels.withUnsafeMutableBufferPointer { destination in
            cfd_convert_to_bgra(
                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerLine, layout,
                Int32(size.width), Int32(size.height), destination.baseAddress, size.width * 4, &error)
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
        return frame
    }

    // MARK: Helpers

    private func call<Argument>(_ name: String, _ request: UInt, _ argument: inout Argument) throws(CaptureError) {
        try stream.call(name, request, &argument)
    }

    @discardableResult
    private func blocking(_ name: String, _ body: () -> Int32) throws(SystemError) -> Int32 {
        try blockingSyscall(name, path: path, body)
    }

    /// The camera's own formats, as four-character codes.
    private func nativeFormats() -> [String] {
        DeviceFormats.enumerate(descriptor: descriptor, driver: driver).map(\.fourcc)
    }
}

/// A four-character code as text, such as "YUYV" (trailing spaces dropped: "Y10 " is "Y10").
func fourccName(_ code: UInt32) -> String {
    var name = String(decoding: (0..<4).map { UInt8((code >> (8 * $0)) & 0xFF) }, as: UTF8.self)
    while name.hasSuffix(" ") { name.removeLast() }
    return name
}
