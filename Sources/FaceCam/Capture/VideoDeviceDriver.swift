#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CV4L2

/// The calls capture makes on a video device, each returning -1 (or nil)
/// and setting errno on failure, as the system calls do. `LibV4L2` makes
/// them through libv4l2; tests put a scripted driver in its place.
protocol VideoDeviceDriver: AnyObject {
    /// open(2), without libv4l2: a device that is no camera fails QUERYCAP quietly.
    func open(_ path: String, flags: Int32) -> Int32
    /// Lets libv4l2 convert formats for `descriptor` from now on; returns it, or -1.
    func attach(_ descriptor: Int32) -> Int32
    func close(_ descriptor: Int32) -> Int32
    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer?
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32
    /// > 0 when the device has a frame or an error to report, 0 on timeout.
    func poll(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32
}

/// The real thing: libv4l2, which converts the camera's own pixel formats to
/// BGR24 when that is asked for.
final class LibV4L2: VideoDeviceDriver {
    func open(_ path: String, flags: Int32) -> Int32 { Glibc.open(path, flags) }
    func attach(_ descriptor: Int32) -> Int32 { cv4l2_fd_open(descriptor) }
    func close(_ descriptor: Int32) -> Int32 { cv4l2_close(descriptor) }

    func ioctl(_ descriptor: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        cv4l2_ioctl(descriptor, request, argument)
    }

    func mmap(_ descriptor: Int32, length: Int, offset: Int64) -> UnsafeMutableRawPointer? {
        let address = cv4l2_mmap(length, descriptor, offset)
        return address == nil || cv4l2_map_failed(address) != 0 ? nil : address
    }

    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 { cv4l2_munmap(address, length) }

    func poll(_ descriptor: Int32, timeoutMilliseconds: Int32) -> Int32 {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&entry, 1, timeoutMilliseconds)
    }
}
