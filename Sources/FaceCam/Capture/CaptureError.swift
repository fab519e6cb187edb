#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a camera cannot be used or stopped delivering; each says what to do (the command line adds its options).
public enum CaptureError: Error, Sendable, CustomStringConvertible {
    /// Another program holds the camera (EBUSY).
    case busy(path: String)
    /// No such device (ENOENT, or ENODEV/ENXIO on open).
    case notFound(path: String)
    /// No permission to open it (EACCES, EPERM).
    case permissionDenied(path: String)
    /// The device disappeared while streaming (ENODEV): unplugged.
    case deviceGone(path: String)
    /// No frame arrived within the timeout.
    case timeout(path: String, seconds: Double)
    /// The path is not a character device with video capture and streaming.
    case notACaptureDevice(path: String, reason: String)
    /// The --output-device path is not a V4L2 output device that takes the camera's frames as YUYV.
    case notAnOutputDevice(path: String, reason: String)
    /// The camera does not offer the pixel format asked for.
    case unsupportedFormat(path: String, requested: String, offered: [String])
    /// Any other failed call.
    case system(SystemError)

    public var description: String {
        switch self {
        case .busy(let path):
            "\(path) is in use by another program: close that program (`fuser \(path)` names it) and try again"
        case .notFound(let path):
            "\(path) does not exist: plug the camera in, or pick one that `facecam devices` lists"
        case .permissionDenied(let path):
            "no permission to open \(path): add your user to the video group (`sudo usermod -aG video $USER`) and log in again"
        case .deviceGone(let path):
            "\(path) went away while capturing (unplugged?); every frame processed before is in the output"
        case .timeout(let path, let seconds):
            "\(path) sent no frame for \(decimal(seconds)) s: check the camera works (`facecam devices`)"
        case .notACaptureDevice(let path, let reason):
            "\(path) is not a V4L2 capture device (\(reason)): pick one that `facecam devices` lists"
        case .notAnOutputDevice(let path, let reason):
            "\(path) is not a V4L2 output device facecam can write to (\(reason)): give a v4l2loopback device "
                + "(modprobe v4l2loopback; v4l2-ctl --list-devices names it)"
        case .unsupportedFormat(let path, let requested, let offered):
            "\(path) does not offer \(requested) (it offers \(offered.joined(separator: ", ")))"
        case .system(let error):
            "\(error.call) on \(error.path ?? "the device") failed: \(error.reason)"
        }
    }

    /// The error for a failed call, by errno; `opening` tells ENODEV at open (no such device) from later (unplugged).
    static func from(_ error: SystemError, opening: Bool = false) -> CaptureError {
        let path = error.path ?? ""
        switch error.errno {
        case EBUSY: return .busy(path: path)
        case ENOENT: return .notFound(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case ENODEV, ENXIO: return opening ? .notFound(path: path) : .deviceGone(path: path)
        default: return .system(error)
        }
    }
}
