import CV4L2
import Foundation
import Synchronization
import Testing
@testable import FaceCam

/// A V4L2 driver played from a script: it answers the ioctls capture makes
/// like a BGR24 camera, and its DQBUF and poll replies can be scripted to
/// interrupt, come up empty, flag errors or lose the device.
final class ScriptedDriver: VideoDeviceDriver {
    enum Dequeue { case frame(flags: UInt32 = 0, bytesUsed: UInt32? = nil), fail(Int32) }

    var size = PixelSize(width: 8, height: 4)
    /// The size the driver gives whatever is asked; nil grants the request.
    var forcedSize: PixelSize?
    var formats: [UInt32] = [CV4L2_PIX_FMT_BGR24]
    var failures: [UInt: Int32] = [:]
    var openFailure: Int32?
    var dequeues: [Dequeue] = []
    /// Plays an output device (v4l2loopback) instead of a camera.
    var isOutput = false
    var polls: [Int32] = []
    /// Moved on as a camera's time goes by: a poll that finds nothing by its timeout, a dequeue by a frame's period
    /// (1/32 s, which sums exactly in binary, as the tests' timeouts and slices do).
    let clock = ManualClock()
    private(set) var log: [String] = []
    private var pixelFormat = CV4L2_PIX_FMT_BGR24
    private var queued: [UInt32] = []
    private var memory: [UnsafeMutableRawPointer] = []
    private var sequence: UInt32 = 0

    deinit { memory.forEach { $0.deallocate() } }

    func open(_ path: String, flags: Int32) -> Int32 {
        log.append("open")
        if let openFailure { errno = openFailure; return -1 }
        return 7
    }

    func attach(_ descriptor: Int32) -> Int32 { descriptor }

    func close(_ descriptor: Int32) -> Int32 {
        log.append("close")
        return 0
    }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        if let failure = failures[request] {
            errno = failure
            return -1
        }
        switch request {
        case CV4L2_VIDIOC_QUERYCAP:
            let capability = argument.assumingMemoryBound(to: v4l2_capability.self)
            let kind = isOutput ? CV4L2_CAP_VIDEO_OUTPUT : CV4L2_CAP_VIDEO_CAPTURE
            capability.pointee.capabilities = kind | CV4L2_CAP_STREAMING | CV4L2_CAP_DEVICE_CAPS
            capability.pointee.device_caps = kind | CV4L2_CAP_STREAMING
        case CV4L2_VIDIOC_G_FMT:
            let format = argument.assumingMemoryBound(to: v4l2_format.self)
            format.pointee.fmt.pix.width = UInt32(size.width)
            format.pointee.fmt.pix.height = UInt32(size.height)
            format.pointee.fmt.pix.pixelformat = pixelFormat
            format.pointee.fmt.pix.bytesperline = UInt32(size.width * 3)
        case CV4L2_VIDIOC_S_FMT:
            let pix = argument.assumingMemoryBound(to: v4l2_format.self).pointee.fmt.pix
            size = forcedSize ?? PixelSize(width: Int(pix.width), height: Int(pix.height))
            pixelFormat = formats.contains(pix.pixelformat) ? pix.pixelformat : formats[0]
        case CV4L2_VIDIOC_G_PARM, CV4L2_VIDIOC_S_PARM:
            let parameters = argument.assumingMemoryBound(to: v4l2_streamparm.self)
            parameters.pointee.parm.capture.capability = CV4L2_CAP_TIMEPERFRAME
            parameters.pointee.parm.capture.timeperframe = v4l2_fract(numerator: 1, denominator: 30)
        case CV4L2_VIDIOC_REQBUFS:
            let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
            log.append("REQBUFS \(request.pointee.count)")
        case CV4L2_VIDIOC_QUERYBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
            buffer.pointee.length = UInt32(size.width * size.height * 3)
            buffer.pointee.m.offset = buffer.pointee.index * buffer.pointee.length
        case CV4L2_VIDIOC_QBUF:
            let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self).pointee
            queued.append(buffer.index)
            if isOutput { log.append("QBUF \(buffer.index)") }
        case CV4L2_VIDIOC_DQBUF:
            clock.advance(by: 1.0 / 32)
            guard !dequeues.isEmpty else { errno = EAGAIN; return -1 }
            switch dequeues.removeFirst() {
            case .fail(let code):
                errno = code
                return -1
            case .frame(let flags, let bytesUsed):
                let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
                buffer.pointee.index = queued.removeFirst()
                buffer.pointee.flags = flags | CV4L2_BUF_FLAG_TIMESTAMP_MONOTONIC
                buffer.pointee.bytesused = bytesUsed ?? UInt32(size.width * size.height * 3)
                buffer.pointee.sequence = sequence
                buffer.pointee.timestamp = timeval(tv_sec: 100, tv_usec: Int(sequence) * 33_333)
                sequence += 1
            }
        case CV4L2_VIDIOC_STREAMON: log.append("STREAMON")
        case CV4L2_VIDIOC_STREAMOFF: log.append("STREAMOFF")
        default: break
        }
        return 0
    }

    /// Each buffer holds solid BGR (10, 20, 30 + its index).
    func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let address = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
        let index = memory.count
        for pixel in 0..<length / 3 {
            address.storeBytes(of: 10, toByteOffset: pixel * 3, as: UInt8.self)
            address.storeBytes(of: 20, toByteOffset: pixel * 3 + 1, as: UInt8.self)
            address.storeBytes(of: UInt8(30 + index), toByteOffset: pixel * 3 + 2, as: UInt8.self)
        }
        memory.append(address)
        log.append("mmap")
        return address
    }

    /// The first `count` bytes of buffer `index`.
    func bytes(ofBuffer index: Int, count: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: memory[index], count: count))
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        log.append("munmap")
        return 0
    }

    func poll(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32 {
        guard !polls.isEmpty else { return 1 }
        let result = polls.removeFirst()
        if result < 0 { errno = -result; return -1 }
        if result == 0 { clock.advance(by: Double(timeoutMilliseconds) / 1000) }
        return result
    }
}

/// A character device that exists on every Linux machine; the scripted driver plays the camera.
let devicePath = "/dev/null"

struct CaptureTests {
    static let teardown = ["STREAMOFF", "munmap", "munmap", "munmap", "munmap", "REQBUFS 0", "close"]

    @Test func framesArriveConvertedAndTeardownMirrorsSetup() throws {
        let driver = ScriptedDriver()
        driver.dequeues = [.frame(), .frame()]
        do {
            let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
            #expect(driver.log == ["open", "REQBUFS 4", "mmap", "mmap", "mmap", "mmap", "STREAMON"])
            let first = try #require(try capture.nextFrame(timeout: 1) { false })
            let second = try #require(try capture.nextFrame(timeout: 1) { false })
            #expect(first.frame.size == PixelSize(width: 8, height: 4))
            #expect(first.frame.pixel(x: 3, y: 2) == BGRA(blue: 10, green: 20, red: 30))
            #expect(second.frame.pixel(x: 0, y: 0) == BGRA(blue: 10, green: 20, red: 31))
            #expect((first.sequence, second.sequence) == (0, 1))
            #expect(first.monotonic && abs(second.timestamp - first.timestamp - 0.033333) < 1e-9)
            #expect(capture.framesPerSecond == 30)
        }
        #expect(Array(driver.log.suffix(7)) == Self.teardown)
    }

    @Test func interruptedAndEmptyCallsAreRetriedOrWaitedOut() throws {
        let driver = ScriptedDriver()
        driver.polls = [-EINTR, 0, 1, 1]
        driver.dequeues = [.fail(EINTR), .fail(EAGAIN), .frame()]
        let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        let frame = try capture.nextFrame(timeout: 1, slice: 0.01) { false }
        #expect(frame?.sequence == 0)
        #expect(driver.dequeues.isEmpty && driver.polls.isEmpty)
    }

    @Test func flaggedAndEmptyBuffersAreRequeuedAndSkipped() throws {
        let driver = ScriptedDriver()
        driver.dequeues = [.frame(flags: CV4L2_BUF_FLAG_ERROR), .frame(bytesUsed: 0), .frame()]
        let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        let frame = try capture.nextFrame(timeout: 1) { false }
        #expect(frame?.sequence == 2)
        #expect(capture.skippedBuffers == 2)
        // All four buffers went back to the driver: four more frames can come.
        driver.dequeues = Array(repeating: .frame(), count: 4)
        for _ in 0..<4 { #expect(try capture.nextFrame(timeout: 1) { false } != nil) }
    }

    @Test func theDriversSizeWinsAndTheDifferenceIsReported() throws {
        let driver = ScriptedDriver()
        driver.forcedSize = PixelSize(width: 6, height: 2)
        driver.dequeues = [.frame()]
        let capture = try V4L2Capture(
            path: devicePath, request: CaptureRequest(size: PixelSize(width: 1000, height: 1000), framesPerSecond: 60),
            driver: driver)
        #expect(capture.size == PixelSize(width: 6, height: 2))
        #expect(capture.adjustments == [
            "/dev/null captures 6x2, not the 1000x1000 asked for",
            "/dev/null captures at 30 frames/s, not the 60 asked for",
        ])
        #expect(try capture.nextFrame(timeout: 1) { false }?.frame.size == PixelSize(width: 6, height: 2))
    }

    @Test func unpluggedMidStreamIsDeviceGoneAndStillTornDown() throws {
        let driver = ScriptedDriver()
        driver.dequeues = [.frame(), .fail(ENODEV)]
        do {
            let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
            #expect(try capture.nextFrame(timeout: 1) { false } != nil)
            #expect {
                try capture.nextFrame(timeout: 1) { false }
            } throws: { error in
                guard case CaptureError.deviceGone(let path) = error else { return false }
                return path == devicePath
            }
        }
        #expect(Array(driver.log.suffix(7)) == Self.teardown)
    }

    @Test func setupFailingHalfWayReleasesWhatItTook() {
        let driver = ScriptedDriver()
        driver.failures[CV4L2_VIDIOC_STREAMON] = EBUSY
        #expect {
            _ = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        } throws: { error in
            guard case CaptureError.busy = error else { return false }
            return true
        }
        #expect(driver.log == ["open", "REQBUFS 4", "mmap", "mmap", "mmap", "mmap", "munmap", "munmap", "munmap", "munmap", "REQBUFS 0", "close"])
    }

    @Test(arguments: [
        (EBUSY, "/dev/null is in use by another program"), (EACCES, "no permission to open /dev/null"),
        (ENOENT, "/dev/null does not exist"), (ENODEV, "/dev/null does not exist"),
    ])
    func openFailuresSayWhatToDo(code: Int32, expected: String) {
        let driver = ScriptedDriver()
        driver.openFailure = code
        #expect {
            _ = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        } throws: { error in
            "\(error)".hasPrefix(expected)
        }
        #expect(driver.log == ["open"])
    }

    @Test func noFrameWithinTheTimeoutIsATimeout() throws {
        let driver = ScriptedDriver()
        driver.polls = Array(repeating: 0, count: 100)
        let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        #expect {
            try capture.nextFrame(timeout: 0.5, clock: driver.clock, slice: 0.125) { driver.polls.isEmpty }
        } throws: { error in
            "\(error)" == "/dev/null sent no frame for 0.5 s: check the camera works (`facecam devices`)"
        }
        // Four empty polls of 0.125 s made the 0.5 s.
        #expect(driver.polls.count == 96)
    }

    /// Buffers flagged as damaged, one a frame's period, are no frame: 2 s of them is the timeout. (Were they not counted,
    /// the script would run out and the stop below end the wait with no error.)
    @Test func onlyDamagedBuffersWithinTheTimeoutIsATimeout() throws {
        let driver = ScriptedDriver()
        driver.dequeues = Array(repeating: .frame(flags: CV4L2_BUF_FLAG_ERROR), count: 100)
        let capture = try V4L2Capture(path: devicePath, request: CaptureRequest(), driver: driver)
        #expect {
            try capture.nextFrame(timeout: 2, clock: driver.clock) { driver.dequeues.isEmpty }
        } throws: { error in
            "\(error)" == "/dev/null sent no frame for 2 s: check the camera works (`facecam devices`)"
        }
        #expect(capture.skippedBuffers == 64 && driver.dequeues.count == 36)
    }

    @Test func aFormatTheCameraLacksIsRefusedNamingWhatItHas() {
        let driver = ScriptedDriver()
        driver.formats = [CV4L2_PIX_FMT_YUYV]
        #expect {
            _ = try V4L2Capture(path: devicePath, request: CaptureRequest(pixelFormat: .mjpeg), driver: driver)
        } throws: { error in
            guard case CaptureError.unsupportedFormat(_, let requested, _) = error else { return false }
            return requested == "MJPG"
        }
        #expect(driver.log.last == "close")
    }

    @Test func aPlainFileIsNotACaptureDevice() {
        #expect {
            _ = try V4L2Capture(path: "/etc/hostname", request: CaptureRequest(), driver: ScriptedDriver())
        } throws: { error in
            "\(error)".hasPrefix("/etc/hostname is not a V4L2 capture device (not a character device)")
        }
    }
}

struct LatestFrameQueueTests {
    /// Counts how many exist at once, to show the queue holds no backlog.
    final class Tracked: Sendable {
        static let counts = Mutex((alive: 0, most: 0))
        let index: Int
        init(_ index: Int) {
            self.index = index
            Self.counts.withLock { counts in
                counts.alive += 1
                counts.most = max(counts.most, counts.alive)
            }
        }
        deinit { Self.counts.withLock { $0.alive -= 1 } }
    }

    /// While the consumer is busy with a frame, those offered replace one another: it goes on with the newest, the
    /// others are counted as dropped, and no backlog is held. The consumer is held by hand, so no timing decides what
    /// is dropped.
    @Test func aBusyConsumerGoesOnWithTheNewestFrameAndDropsAreCounted() {
        let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        let order = Mutex<[Int]>([])
        let queue = LatestFrameQueue<Tracked>(label: "test") { item in
            started.signal()
            gate.wait()
            order.withLock { $0.append(item.index) }
        }
        queue.offer(Tracked(0))
        started.wait()
        for index in 1..<10 { queue.offer(Tracked(index)) }
        gate.signal()
        started.wait()
        gate.signal()
        queue.drain()
        #expect(order.withLock { $0 } == [0, 9])
        #expect(queue.processed == 2 && queue.dropped == 8)
        // At most: the one being processed, the one waiting, the one being offered.
        #expect(Tracked.counts.withLock { $0.most } <= 3)
    }

    /// A consumer that keeps up (each frame offered once the last is processed) loses nothing.
    /// Paced by the consumer itself, not by a sleep, so a busy machine cannot make it drop.
    @Test func aConsumerThatKeepsUpDropsNothing() {
        let done = DispatchSemaphore(value: 0)
        let queue = LatestFrameQueue<Int>(label: "fast") { _ in done.signal() }
        for index in 0..<20 {
            queue.offer(index)
            done.wait()
        }
        queue.drain()
        #expect(queue.processed == 20 && queue.dropped == 0)
    }
}

/// --output-device against the scripted driver playing a v4l2loopback device.
struct OutputDeviceTests {
    static func driver() -> ScriptedDriver {
        let driver = ScriptedDriver()
        driver.isOutput = true
        driver.formats = [CV4L2_PIX_FMT_YUYV]
        return driver
    }

    /// Mid-grey BGRA is Y 128, U 128, V 128; the stream starts with the first frame; with both
    /// buffers queued and none given back, a frame is dropped, not waited for; one given back is
    /// used again; teardown mirrors setup.
    @Test func framesGoOutAsYUYVAndAreDroppedRatherThanWaitedFor() throws {
        let driver = Self.driver()
        var device: V4L2OutputDevice? = try V4L2OutputDevice(
            path: devicePath, size: PixelSize(width: 8, height: 4), driver: driver, bufferCount: 2)
        var grey = Frame(width: 8, height: 4)
        for y in 0..<4 { for x in 0..<8 { grey.setPixel(x: x, y: y, to: BGRA(blue: 128, green: 128, red: 128)) } }
        try device!.write(grey)
        // Rows are the driver's bytesperline apart (3 x 8 here), each starting with 8 pixels of YUYV.
        let bytes = driver.bytes(ofBuffer: 0, count: 4 * 24)
        #expect((0..<4).allSatisfy { row in bytes[row * 24 ..< row * 24 + 16].allSatisfy { $0 == 128 } })
        try device!.write(grey)
        try device!.write(grey)
        #expect(device!.written == 2)
        #expect(device!.dropped == 1)
        driver.dequeues = [.frame()]
        try device!.write(grey)
        #expect(device!.written == 3)
        #expect(driver.log.filter { $0.hasPrefix("QBUF") || $0 == "STREAMON" } == ["QBUF 0", "STREAMON", "QBUF 1", "QBUF 0"])
        device = nil
        #expect(Array(driver.log.suffix(5)) == ["STREAMOFF", "munmap", "munmap", "REQBUFS 0", "close"])
    }

    @Test func aCaptureOnlyDeviceIsRefused() {
        let driver = ScriptedDriver()
        #expect {
            try V4L2OutputDevice(path: devicePath, size: PixelSize(width: 8, height: 4), driver: driver)
        } throws: { error in
            guard case .notAnOutputDevice(_, let reason) = error as? CaptureError else { return false }
            return reason == "it has no video output" && driver.log == ["open", "close"]
        }
    }
}
