#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
internal import CFaceDetect
internal import CV4L2

/// A V4L2 output device (v4l2loopback in real use, a virtual camera for video calls; vivid in the
/// tests) fed BGRA frames as YUYV through memory-mapped buffers.
///
/// Writing never waits: a frame finds a free buffer or is dropped (`dropped`), so a consumer that
/// reads slowly, or not at all, costs frames on the device, never time in facecam.
///
/// Setup runs open, QUERYCAP, S_FMT (then G_FMT), REQBUFS, QUERYBUF and mmap; the first frame queued
/// starts streaming. Teardown runs the reverse (STREAMOFF, munmap, REQBUFS 0, close) from its
/// `MappedDeviceStream`'s `deinit` on every path, including when setup fails half-way.
/// @unchecked Sendable: a device's descriptor and mapped buffers (C handles), written from one queue at a time.
public final class V4L2OutputDevice: @unchecked Sendable {
    public let path: String
    public let size: PixelSize
    /// Frames dropped because every buffer was still with the device.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }
    public var written: Int { writtenCount.load(ordering: .relaxed) }
    /// Counted on the writing queue, read on any thread.
    private let droppedCount = Atomic(0)
    private let writtenCount = Atomic(0)

    private let stream: MappedDeviceStream
    /// Buffers facecam holds (never queued, or dequeued back).
    private var free: [UInt32] = []
    private var bytesPerLine = 0
    private var imageBytes = 0

    public convenience init(path: String, size: PixelSize) throws(CaptureError) {
        try self.init(path: path, size: size, driver: LibV4L2())
    }

    init(path: String, size: PixelSize, driver: VideoDeviceDriver, bufferCount: UInt32 = 4) throws(CaptureError) {
        self.path = path
        self.size = size
        stream = MappedDeviceStream(path: path, driver: driver, type: CV4L2_BUF_TYPE_VIDEO_OUTPUT)
        try stream.open { .notAnOutputDevice(path: path, reason: $0) }
        try checkCapabilities()
        try setFormat()
        try stream.mapBuffers(count: bufferCount, minimum: 1, bytes: imageBytes)
        free = (0..<UInt32(stream.buffers.count)).reversed()
    }

    /// Queues `frame` (of the device's size) for the device, or drops it when no buffer is free.
    public func write(_ frame: Frame) throws(CaptureError) {
        precondition(frame.size == size, "a frame of another size than the device's")
        // Every buffer the device is done with comes back first.
        while stream.streaming, let done = try stream.dequeue() {
            if Int(done.index) < stream.buffers.count { free.append(done.index) }
        }
        guard let index = free.popLast() else {
            droppedCount.add(1, ordering: .relaxed)
            return
        }
        var error = cfd_error()
        let destination = stream.buffers[Int(index)].address.assumingMemoryBound(to: UInt8.self)
        let status = frame.withImageView { cfd_convert_bgra_to_yuyv(&$0, destination, bytesPerLine, &error) }
        guard status == CFD_OK else {
            free.append(index)
            throw .system(SystemError(call: "cfd_convert_bgra_to_yuyv", path: path, errno: EINVAL))
        }
        var buffer = stream.buffer(index: index)
        buffer.bytesused = UInt32(imageBytes)
        buffer.field = CV4L2_FIELD_NONE
        try stream.call("VIDIOC_QBUF", CV4L2_VIDIOC_QBUF, &buffer)
        writtenCount.add(1, ordering: .relaxed)
        if !stream.streaming { try stream.streamOn() }
    }

    // MARK: Setup

    private func checkCapabilities() throws(CaptureError) {
        var capability = v4l2_capability()
        do {
            try blockingSyscall("VIDIOC_QUERYCAP", path: path) {
                stream.driver.ioctl(stream.descriptor, CV4L2_VIDIOC_QUERYCAP, &capability)
            }
        } catch {
            throw .notAnOutputDevice(path: path, reason: "it does not answer VIDIOC_QUERYCAP")
        }
        let caps = capability.capabilities & CV4L2_CAP_DEVICE_CAPS != 0 ? capability.device_caps : capability.capabilities
        guard caps & CV4L2_CAP_VIDEO_OUTPUT != 0 else { throw .notAnOutputDevice(path: path, reason: "it has no video output") }
        guard caps & CV4L2_CAP_STREAMING != 0 else { throw .notAnOutputDevice(path: path, reason: "it cannot stream") }
    }

    private func setFormat() throws(CaptureError) {
        guard size.width % 2 == 0 else {
            throw .notAnOutputDevice(path: path, reason: "YUYV needs an even width, and frames are \(size)")
        }
        var format = v4l2_format()
        format.type = CV4L2_BUF_TYPE_VIDEO_OUTPUT
        format.fmt.pix.width = UInt32(clamping: size.width)
        format.fmt.pix.height = UInt32(clamping: size.height)
        format.fmt.pix.pixelformat = CV4L2_PIX_FMT_YUYV
        format.fmt.pix.field = CV4L2_FIELD_NONE
        try stream.call("VIDIOC_S_FMT", CV4L2_VIDIOC_S_FMT, &format)
        try stream.call("VIDIOC_G_FMT", CV4L2_VIDIOC_G_FMT, &format)
        let pix = format.fmt.pix
        guard pix.pixelformat == CV4L2_PIX_FMT_YUYV, Int(pix.width) == size.width, Int(pix.height) == size.height else {
            throw .notAnOutputDevice(
                path: path,
                reason: "it takes \(pix.width)x\(pix.height) \(fourccName(pix.pixelformat)), not the camera's \(size) as YUYV")
        }
        bytesPerLine = max(Int(pix.bytesperline), size.width * 2)
        imageBytes = max(Int(pix.sizeimage), bytesPerLine * size.height)
    }
}
