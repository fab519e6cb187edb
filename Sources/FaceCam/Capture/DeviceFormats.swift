#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CV4L2

/// A pixel format a camera offers natively, with its frame sizes and rates.
public struct DeviceFormat: Sendable, Hashable {
    public struct Size: Sendable, Hashable {
        public var width: Int
        public var height: Int
        /// Discrete frame rates in frames per second; empty when the driver lists none.
        public var framesPerSecond: [Double]
    }

    /// The four-character code, such as "YUYV" or "MJPG".
    public var fourcc: String
    public var description: String
    /// Discrete sizes; for a stepwise or continuous range, its smallest and largest.
    public var sizes: [Size]
}

enum DeviceFormats {
    /// The camera's own formats (not the ones libv4l2 emulates by conversion).
    static func enumerate(descriptor: Int32, driver: VideoDeviceDriver) -> [DeviceFormat] {
        var formats: [DeviceFormat] = []
        for index in 0..<UInt32(256) {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = CV4L2_BUF_TYPE_VIDEO_CAPTURE
            guard retrying({ driver.ioctl(descriptor, CV4L2_VIDIOC_ENUM_FMT, &description) }) else { break }
            if description.flags & CV4L2_FMT_FLAG_EMULATED != 0 { continue }
            formats.append(DeviceFormat(
                fourcc: fourccName(description.pixelformat), description: text(description.description),
                sizes: sizes(descriptor: descriptor, driver: driver, fourcc: description.pixelformat)))
        }
        return formats
    }

    private static func sizes(descriptor: Int32, driver: VideoDeviceDriver, fourcc: UInt32) -> [DeviceFormat.Size] {
        var sizes: [DeviceFormat.Size] = []
        for index in 0..<UInt32(256) {
            var size = v4l2_frmsizeenum()
            size.index = index
            size.pixel_format = fourcc
            guard retrying({ driver.ioctl(descriptor, CV4L2_VIDIOC_ENUM_FRAMESIZES, &size) }) else { break }
            if size.type == CV4L2_FRMSIZE_TYPE_DISCRETE {
                let (width, height) = (size.discrete.width, size.discrete.height)
                sizes.append(DeviceFormat.Size(
                    width: Int(width), height: Int(height),
                    framesPerSecond: rates(descriptor: descriptor, driver: driver, fourcc: fourcc, width: width, height: height)))
            } else {
                let range = size.stepwise
                sizes.append(DeviceFormat.Size(width: Int(range.min_width), height: Int(range.min_height), framesPerSecond: []))
                sizes.append(DeviceFormat.Size(width: Int(range.max_width), height: Int(range.max_height), framesPerSecond: []))
                break
            }
        }
        return sizes
    }

    private static func rates(descriptor: Int32, driver: VideoDeviceDriver, fourcc: UInt32, width: UInt32, height: UInt32) -> [Double] {
        var rates: [Double] = []
        for index in 0..<UInt32(64) {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = fourcc
            interval.width = width
            interval.height = height
            guard retrying({ driver.ioctl(descriptor, CV4L2_VIDIOC_ENUM_FRAMEINTERVALS, &interval) }),
                  interval.type == CV4L2_FRMIVAL_TYPE_DISCRETE else { break }
            let period = interval.discrete
            if period.numerator > 0 { rates.append(Double(period.denominator) / Double(period.numerator)) }
        }
        return rates
    }

    /// An enumeration ioctl: true while it answers, false at the end of the list (EINVAL) or on any error.
    private static func retrying(_ body: () -> Int32) -> Bool {
        (try? blockingSyscall("VIDIOC_ENUM", body)) != nil
    }
}

/// A NUL-terminated C character array (imported as a tuple) as a String.
func text<Tuple>(_ tuple: Tuple) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

/// A video device as `facecam devices` lists it.
public struct CaptureDevice: Sendable {
    public var path: String
    public var card: String
    public var driver: String
    public var bus: String
    public var formats: [DeviceFormat]
    /// udev's stable names for the node (/dev/v4l/by-id/..., /dev/v4l/by-path/...), which survive
    /// reboots and replugging where /dev/videoN may not; sorted.
    public var aliases: [String] = []

    /// Where udev keeps the stable names of video nodes.
    public static let aliasDirectories = ["/dev/v4l/by-id", "/dev/v4l/by-path"]

    /// The capture devices among /dev/video*, in number order (others are left out), each
    /// with the links in `aliasDirectories` that lead to it.
    public static func all(directory: String = "/dev", aliasDirectories: [String] = aliasDirectories) -> [CaptureDevice] {
        let names = ((try? directoryEntries(FilePath(directory))) ?? []).map { String(decoding: $0, as: UTF8.self) }
        let numbered = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("video"), let number = Int(name.dropFirst(5)) else { return nil }
            return (number, directory + "/" + name)
        }
        let links = aliasDirectories.flatMap { folder in
            ((try? directoryEntries(FilePath(folder))) ?? []).map { folder + "/" + String(decoding: $0, as: UTF8.self) }
        }
        let targets = Dictionary(grouping: links) { resolvedPath($0) ?? "" }
        return numbered.sorted { $0.0 < $1.0 }.compactMap { _, path in
            guard var device = try? CaptureDevice(path: path) else { return nil }
            device.aliases = (targets[resolvedPath(path) ?? path] ?? []).sorted()
            return device
        }
    }

    /// `path` with every symbolic link followed (realpath), or nil when it leads nowhere.
    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens `path` long enough to ask it; throws when it is not a capture device.
    public init(path: String) throws(CaptureError) {
        try self.init(path: path, driver: LibV4L2())
    }

    init(path: String, driver: VideoDeviceDriver) throws(CaptureError) {
        let descriptor: Int32
        do {
            descriptor = try blockingSyscall("open", path: path) { driver.open(path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw .from(error, opening: true)
        }
        defer { _ = driver.close(descriptor) }
        var capability = v4l2_capability()
        _ = try captureCapabilities(descriptor: descriptor, driver: driver, path: path, into: &capability)
        self.path = path
        card = text(capability.card)
        self.driver = text(capability.driver)
        bus = text(capability.bus_info)
        formats = DeviceFormats.enumerate(descriptor: descriptor, driver: driver)
    }
}

/// QUERYCAP, checked for video capture: the capabilities of this node
/// (device_caps where the driver gives them, else the whole device's).
@discardableResult
func captureCapabilities(
    descriptor: Int32, driver: VideoDeviceDriver, path: String, into capability: inout v4l2_capability
) throws(CaptureError) -> UInt32 {
    do {
        try blockingSyscall("VIDIOC_QUERYCAP", path: path) { driver.ioctl(descriptor, CV4L2_VIDIOC_QUERYCAP, &capability) }
    } catch {
        if error.errno == ENOTTY || error.errno == EINVAL {
            throw .notACaptureDevice(path: path, reason: "it does not answer VIDIOC_QUERYCAP")
        }
        throw .from(error)
    }
    let caps = capability.capabilities & CV4L2_CAP_DEVICE_CAPS != 0 ? capability.device_caps : capability.capabilities
    guard caps & CV4L2_CAP_VIDEO_CAPTURE != 0 else {
        throw .notACaptureDevice(path: path, reason: "it has no video capture")
    }
    return caps
}

func captureCapabilities(descriptor: Int32, driver: VideoDeviceDriver, path: String) throws(CaptureError) -> UInt32 {
    var capability = v4l2_capability()
    return try captureCapabilities(descriptor: descriptor, driver: driver, path: path, into: &capability)
}
