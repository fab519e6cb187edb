#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CV4L2

/// One V4L2 device node streaming one buffer type (capture or output) through memory-mapped
/// buffers: the single owner of the descriptor, the buffers and the stream. `deinit` tears down
/// what was set up, in reverse (STREAMOFF, munmap, REQBUFS 0, close), on every path, including
/// when setup failed half-way.
final class MappedDeviceStream {
    let path: String
    let driver: VideoDeviceDriver
    /// CV4L2_BUF_TYPE_VIDEO_CAPTURE or CV4L2_BUF_TYPE_VIDEO_OUTPUT.
    let type: UInt32
    private(set) var descriptor: Int32 = -1
    private(set) var buffers: [(address: UnsafeMutableRawPointer, length: Int)] = []
    private var requestedBuffers = false
    private(set) var streaming = false

    init(path: String, driver: VideoDeviceDriver, type: UInt32) {
        self.path = path
        self.driver = driver
        self.type = type
    }

    deinit {
        var type = type
        if streaming { _ = driver.ioctl(descriptor, CV4L2_VIDIOC_STREAMOFF, &type) }
        for buffer in buffers.reversed() { _ = driver.munmap(buffer.address, length: buffer.length) }
        if requestedBuffers {
            var release = v4l2_requestbuffers()
            release.count = 0
            release.type = type
            release.memory = CV4L2_MEMORY_MMAP
            _ = driver.ioctl(descriptor, CV4L2_VIDIOC_REQBUFS, &release)
        }
        if descriptor >= 0 { _ = driver.close(descriptor) }
    }

    /// Opens the node, which must be a character device, not blocking; `notADevice` makes the error for anything else.
    func open(notADevice: (String) -> CaptureError) throws(CaptureError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .from(SystemError(call: "stat", path: path, errno: errno), opening: true)
        }
        guard info.st_mode & S_IFMT == S_IFCHR else { throw notADevice("not a character device") }
        do {
            descriptor = try blockingSyscall("open", path: path) { driver.open(path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw .from(error, opening: true)
        }
    }

    /// Requests `count` buffers and maps each; fewer than `minimum` granted is ENOMEM. Each must hold
    /// `bytes` at least (ENOSPC otherwise).
    func mapBuffers(count: UInt32, minimum: UInt32, bytes: Int = 0) throws(CaptureError) {
        var request = v4l2_requestbuffers()
        request.count = count
        request.type = type
        request.memory = CV4L2_MEMORY_MMAP
        try call("VIDIOC_REQBUFS", CV4L2_VIDIOC_REQBUFS, &request)
        requestedBuffers = true
        guard request.count >= minimum else { throw .system(SystemError(call: "VIDIOC_REQBUFS", path: path, errno: ENOMEM)) }
        for index in 0..<request.count {
            var buffer = self.buffer(index: index)
            try call("VIDIOC_QUERYBUF", CV4L2_VIDIOC_QUERYBUF, &buffer)
            let length = Int(buffer.length)
            guard length >= bytes else { throw .system(SystemError(call: "VIDIOC_QUERYBUF", path: path, errno: ENOSPC)) }
            guard let address = driver.mmap(descriptor, length: length, offset: Int64(buffer.m.offset)) else {
                throw .from(SystemError(call: "mmap", path: path, errno: errno))
            }
            buffers.append((address, length))
        }
    }

    func streamOn() throws(CaptureError) {
        var argument = Int32(bitPattern: type)
        try call("VIDIOC_STREAMON", CV4L2_VIDIOC_STREAMON, &argument)
        streaming = true
    }

    /// One DQBUF without waiting: the buffer, or nil when none is ready.
    func dequeue() throws(CaptureError) -> v4l2_buffer? {
        var buffer = self.buffer(index: 0)
        let outcome: SyscallOutcome<Int32>
        do {
            outcome = try syscall("VIDIOC_DQBUF", path: path) { driver.ioctl(descriptor, CV4L2_VIDIOC_DQBUF, &buffer) }
        } catch {
            throw .from(error)
        }
        guard case .completed = outcome else { return nil }
        return buffer
    }

    /// A memory-mapped buffer of this stream's type.
    func buffer(index: UInt32) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.type = type
        buffer.memory = CV4L2_MEMORY_MMAP
        buffer.index = index
        return buffer
    }

    /// An ioctl that must succeed; EINTR is retried.
    func call<Argument>(_ name: String, _ request: UInt, _ argument: inout Argument) throws(CaptureError) {
        do {
            _ = try withUnsafeMutableBytes(of: &argument) { bytes in
                Result { () throws(SystemError) in
                    try blockingSyscall(name, path: path) { driver.ioctl(descriptor, request, bytes.baseAddress!) }
                }
            }.get()
        } catch {
            throw .from(error)
        }
    }
}
