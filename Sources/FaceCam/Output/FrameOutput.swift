#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// A file that rendered frames (annotated or redacted) are written to, in order.
public protocol FrameOutput: AnyObject {
    /// The file's final name, for messages.
    var path: String { get }
    /// Adds `frame`, shown at `time` seconds from the first frame (outputs of a fixed rate ignore it).
    func append(_ frame: Frame, time: Double) throws(FaceCamError)
    /// Completes the file; until then it does not exist under `path` (a video
    /// written by OpenCV excepted: that one grows in place).
    func finish() throws(FaceCamError)
}

/// A still image written in the format its extension names, one of `ImageFile.extensions` (OpenCV
/// writes every format facecam reads; JPEG goes through libjpeg, the others through OpenCV's
/// encoders): the first frame appended, written as a `PartialFile` and renamed.
public final class StillImageOutput: FrameOutput {
    public let path: String
    private let quality: Int
    private var written = false

    public init(path: String, quality: Int = 95) {
        self.path = path
        self.quality = quality
    }

    public func append(_ frame: Frame, time: Double) throws(FaceCamError) {
        guard !written else { return }
        try frame.save(to: path, quality: quality)
        written = true
    }

    public func finish() throws(FaceCamError) {}
}

extension Frame {
    /// Saves the frame as the image `path`'s extension names (JPEG through libjpeg at `quality`,
    /// others through OpenCV), under a partial name renamed when whole (`PartialFile`), so that a
    /// full disk or a kill leaves no cut image under its name; `what` names it in errors.
    func save(to path: String, quality: Int, durably: Bool = true, what: String = "the image") throws(FaceCamError) {
        let format = FilePath(path).fileExtension ?? ""
        let bytes: [UInt8]
        if ["jpg", "jpeg", "jpe"].contains(format) {
            do {
                bytes = try JPEG.encode(self, quality: quality)
            } catch {
                throw .imageOutput(what: what, path: path, reason: error.reason)
            }
        } else {
            bytes = try encoded(extension: "." + format, quality: quality, path: path, what: what)
        }
        do {
            let file = try PartialFile(for: path)
            try writeAll(bytes, to: file.descriptor, path: file.path)
            try file.commit(durably: durably)
        } catch {
            throw .imageOutput(what: what, path: path, reason: "\(error.call) failed: \(error.reason)")
        }
    }

    /// The frame encoded by OpenCV in the format `extension` (".png") names.
    private func encoded(extension: String, quality: Int, path: String, what: String) throws(FaceCamError) -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = cfd_error()
        let status = withImageView { cfd_encode_image(&$0, `extension`, Int32(clamping: quality), &data, &size, &error) }
        guard status == CFD_OK, let data else { throw error.mediaUnavailable(path) ?? .imageOutput(what: what, path: path, reason: error.text) }
        defer { cfd_bytes_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
