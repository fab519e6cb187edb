/// What can go wrong while processing inputs; each description is one line that says what happened
/// (the command line adds what to do, in its options).
public enum FaceCamError: Error, Sendable, CustomStringConvertible {
    /// No cascade file was found under any of the paths tried.
    case cascadeNotFound(name: String, tried: [String])
    /// The cascade file exists but OpenCV could not load it.
    case cascadeUnloadable(path: String, reason: String)
    /// No file of the named model (YuNet, CenterFace) was found under any of the paths tried.
    case modelNotFound(String, tried: [String])
    /// The named model's file exists but OpenCV could not load or run it.
    case modelUnloadable(String, path: String, reason: String)
    /// OpenVINO's libraries are missing from every place tried, or would not load.
    case engineUnavailable(String, tried: [String], reason: String)
    /// facecam's media library (libFaceCamMedia.so: still images other than JPEG, videos) is missing or would not
    /// load, so the file at `path` could not be read or written; the reason names the paths tried.
    case mediaUnavailable(path: String, reason: String)
    /// A file or directory could not be read.
    case unreadable(SystemError)
    /// A FIFO, socket or device where a file was expected: reading it could block for ever.
    case notARegularFile(path: String)
    /// A folder where a file is read (enrol's photographs, a video to read twice).
    case directory(path: String)
    /// The file's bytes are not an image facecam can decode.
    case undecodable(path: String, reason: String)
    /// The image or video announces more pixels than the limit allows.
    case tooLarge(path: String, size: PixelSize, limit: Int)
    /// The image would take more memory (`need` bytes) than the process may still take (`room`): `ulimit -v`, a cgroup.
    case tooLargeForMemory(path: String, size: PixelSize, need: Int, room: Int)
    /// An overlay picture has no alpha channel to show the face through.
    /// A picture facecam cannot lay over faces: too large for it, though a readable image.
    case unusablePicture(path: String, reason: String)
    case overlayWithoutAlpha(path: String)
    /// The file is not a video FFmpeg can open.
    case undecodableVideo(path: String, reason: String)
    /// A stream (URL, standard input) could not be opened.
    case unreachableStream(source: String, reason: String)
    /// A stream sent nothing for `seconds`: while opening (`afterFrame` nil), or after that frame (-1: before any).
    case streamStalled(source: String, afterFrame: Int?, seconds: Double)
    /// Frames of a video were lost to damage, or it ended before its announced frame count.
    case videoDamaged(path: String, reason: String)
    /// A video file whose video stream holds no frame: nothing to write from it.
    case emptyVideo(path: String)
    /// A video frame could not be decoded.
    case videoFrame(path: String, frame: Int, reason: String)
    /// The geometry does not fit this frame (for example the aperture is larger than the image).
    case geometry(source: String, GeometryError)
    /// A polygon (a zone, an ignored zone, a mask) does not fit the source's preview.
    case zone(source: String, PolygonOutside)
    /// OpenCV failed while detecting or rendering.
    case openCV(String)
    /// dlib failed while describing a face to recognise it.
    case recognition(String)
    /// Detection failed on one frame (its record is left out); `error` says how.
    indirect case detection(source: String, frame: Int, error: FaceCamError)
    /// The preview to draw is larger than facecam draws.
    case previewTooLarge(source: String, size: PixelSize, limit: Int)
    /// An annotated JPEG could not be encoded or written.

    /// The annotated video could not be opened or written.
    case annotatedVideo(path: String, reason: String)
    /// Results could not be written: nothing more can be reported.
    case output(SystemError)
    /// Frames could not be written to a V4L2 output device (--output-device).
    case outputDevice(path: String, reason: String)
    /// A still image could not be encoded or written (redact).
    /// `what`: "the image" (redact's), "annotated image", "face crop".
    case imageOutput(what: String = "the image", path: String, reason: String)
    /// A video could not be encoded (ffmpeg missing, refusing its arguments, or failing).
    case videoEncoder(path: String, reason: String)

    public var description: String {
        switch self {
        case .cascadeNotFound(let name, let tried):
            return "cascade '\(name)' not found; tried \(tried.joined(separator: ", "))"
        case .cascadeUnloadable(let path, let reason):
            return "cannot load cascade \(path): \(reason)"
        case .modelNotFound(let model, let tried):
            return "\(model) model not found; tried \(tried.joined(separator: ", "))"
        case .modelUnloadable(let model, let path, let reason):
            return "cannot load \(model) model \(path): \(reason)"
        case .engineUnavailable(let engine, let tried, let reason):
            return "\(engine) is not available: \(reason); tried \(tried.joined(separator: ", "))"
        case .mediaUnavailable(let path, let reason):
            return "\(path): \(reason)"
        case .unreadable(let error):
            return "\(error.path ?? ""): cannot read (\(error.call): \(error.reason))"
        case .directory(let path):
            return "\(path): a folder, not a file: name the files in it"
        case .notARegularFile(let path):
            return "\(path): not a regular file (a FIFO, socket or device); name a file, or save the stream to one first"
        case .undecodable(let path, let reason):
            return "\(path): not a readable image: \(reason)"
        case .tooLarge(let path, let size, let limit):
            let megapixels = Double(size.width) * Double(size.height) / 1e6
            return "\(path): \(size) is \(megapixels < 10_000 ? String(format: "%.1f", megapixels) : "over 10000") megapixels, "
                + "more than the limit of \(decimal(Double(limit) / 1e6))"
        case .tooLargeForMemory(let path, let size, let need, let room):
            let gigabytes = { (bytes: Int) in String(format: "%.1f GB", Double(bytes) / 1e9) }
            return "\(path): \(size) needs about \(gigabytes(need)) to read and mark, more than the \(gigabytes(room)) this process "
                + "may still take (ulimit -v, or its cgroup's memory.max)"
        case .undecodableVideo(let path, let reason):
            return "\(path): not a video facecam can read: \(reason)"
        case .emptyVideo(let path):
            return "\(path): its video stream holds no frame"
        case .unusablePicture(let path, let reason):
            return "\(path): \(reason)"
        case .overlayWithoutAlpha(let path):
            return "\(path): the overlay has no alpha channel, so it would hide the whole picture around the face: "
                + "give a PNG with transparency"
        case .unreachableStream(let source, let reason):
            return "\(source): \(reason): check the address, that the stream is up, and that FFmpeg reads its protocol "
                + "and format (standard input needs one that plays without seeking, such as MJPEG AVI or MPEG-TS)"
        case .streamStalled(let source, let afterFrame, let seconds):
            let when = switch afterFrame {
            case nil: "while opening"
            case -1: "before the first frame"
            case let frame?: "after frame \(frame)"
            }
            return "\(source): the stream stalled \(when): no frame arrived for \(decimal(seconds)) s"
        case .videoDamaged(let path, let reason):
            return "\(path): \(reason)"
        case .videoFrame(let path, let frame, let reason):
            return "\(path): frame \(frame): \(reason)"
        case .geometry(let source, let error):
            return "\(source): the \(error.option.rawValue) does not fit: \(error.description)"
        case .zone(let source, let problem):
            return "\(source): \(problem)"
        case .openCV(let message):
            return "OpenCV failed: \(message)"
        case .recognition(let message):
            return "face recognition failed: \(message)"
        case .detection(let source, let frame, let error):
            return "\(source) frame \(frame): no faces reported, detection failed: \(error.description)"
        case .previewTooLarge(let source, let size, let limit):
            return "\(source): the preview would be \(size), more than the \(limit / 1_000_000) megapixels facecam draws"
        case .annotatedVideo(let path, let reason):
            return "cannot write annotated video \(path): \(reason)"
        case .outputDevice(let path, let reason):
            return "cannot write frames to \(path): \(reason)"
        case .imageOutput(let what, let path, let reason):
            return "cannot write \(what) \(path): \(reason)"
        case .videoEncoder(let path, let reason):
            return "cannot write the video \(path): \(reason)"
        case .output(let error):
            return "cannot write results to \(error.path ?? "the output"): \(error.reason)"
        }
    }
}
