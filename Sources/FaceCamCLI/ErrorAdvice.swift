import FaceCam
import FaceCamRecognition
import FaceCamServe

// The library's errors say what happened; the command line adds what to do, in its own options.

extension FaceCamError {
    /// The error as facecam says it: the library's line, with what to do.
    var advised: String {
        switch self {
        case .cascadeNotFound: description + " (install opencv-data, or pass --cascade a path to a cascade XML file)"
        case .cascadeUnloadable: description + " (pass --cascade a valid cascade XML file)"
        case .modelNotFound: description + " (reinstall facecam, run make models in a source tree, or pass --model the model's path)"
        case .modelUnloadable(let model, _, _): description + " (pass --model a valid \(model) ONNX file)"
        case .engineUnavailable: description + " (run make openvino in a source tree, reinstall facecam, or use --engine opencv)"
        case .mediaUnavailable: description + " (reinstall facecam, or run make release in a source tree)"
        case .tooLarge: description + " (raise --max-megapixels for a file you trust)"
        case .tooLargeForMemory: description + ": raise that limit, or give a smaller image"
        case .streamStalled: description + " (raise --timeout for a slow source)"
        case .previewTooLarge: description + "; give --preview a smaller size"
        case .geometry(let source, let error): "\(source): --\(error.option.rawValue) does not fit: \(error.description)"
        case .zone(let source, let problem): "\(source): \(problem.advised)"
        case .detection(let source, let frame, let error): "\(source) frame \(frame): no faces reported, detection failed: \(error.advised)"
        default: description
        }
    }
}

extension PolygonName {
    /// The option that gave the polygon, and which one it is.
    var option: String {
        switch self {
        case .zone(let name): "--zone \(name)"
        case .ignored(let index): "--ignore-zone \(index)"
        case .mask(let index): "--mask-zone \(index)"
        }
    }
}

extension PolygonOutside {
    var advised: String { described(naming: name.option) }
}

/// Says `error` on standard error, with what to do.
func report(_ error: FaceCamError) {
    report(error.advised)
}

extension CaptureError {
    var advised: String {
        switch self {
        case .timeout: description + ", or raise --timeout"
        case .unsupportedFormat: description + ": use --pixel-format auto"
        default: description
        }
    }
}

extension ServeError {
    var advised: String { description + "; name another [HOST:]PORT with --serve (port 0 takes a free one)" }
}

extension GalleryError {
    var advised: String {
        switch self {
        case .cannotOpen: description + " (give --gallery a file in a folder you may write)"
        case .isDirectory(let path): description + " (give --gallery a file in it, such as \(FilePath(path).appending(Array("gallery.sqlite".utf8))))"
        case .notAGallery: description + " (give --gallery a new file, or one facecam enrol made)"
        default: description
        }
    }
}

/// Any error as facecam says it, with what to do where its options can help.
func advised(_ error: any Error) -> String {
    switch error {
    case let error as FaceCamError: error.advised
    case let error as CaptureError: error.advised
    case let error as ServeError: error.advised
    case let error as GalleryError: error.advised
    default: "\(error)"
    }
}

/// Says what the sink says, a failure with what to do.
func report(_ message: ResultSink.Message) {
    switch message {
    case .failure(let error): report(error)
    case .renamed(let renamed): report("\(renamed) (images in different folders: give --image-root)")
    case .keptUnfinished: report(message.description)
    case .hooks(let summary): report("--on-event: " + summary.described(limit: "--on-event-jobs"))
    }
}
