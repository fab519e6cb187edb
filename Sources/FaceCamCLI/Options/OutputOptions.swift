import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// Where and how results go.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Result format: " + ResultFormat.allCases.map(Self.described).joined(separator: ", ") + ". See docs/evaluation.md.",
        valueName: "format"))
    var format: ResultFormat = .jsonl

    /// A format as `--format`'s help lists it: its name, what it is, and how it is written, from what the format says of itself.
    private static func described(_ format: ResultFormat) -> String {
        let how = (format.isDocument ? ", written whole at the end" : "") + (format.isFolderOnly ? ", in --output-dir" : "")
            + (format.isVideoOnly ? "; video and live" : format.isWholeAtRunEnd ? "; detect and video" : "")
        return "\(format.rawValue) (\(format.summary)\(how))"
    }

    @Option(name: .shortAndLong, help: ArgumentHelp("Write results to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Save each frame as the preview shows it, faces outlined, as a JPEG in this directory.", valueName: "dir"))
    var annotate: String?

    @Option(help: ArgumentHelp(
        "Save each face found as a JPEG (or --crop-format png) in this directory, named after its input (live: frame-N, N the capture's frame counter), "
            + "frame and face (or track id).",
        valueName: "dir"))
    var crops: String?

    @Option(help: ArgumentHelp(
        "With --crops: box (the face's box with --crop-margin around it, upright) or aligned (--crop-size pixels square, "
            + "turned and scaled so that the eyes, nose and mouth sit where face-recognition models expect them; \(DetectorKind.networkNames)) "
            + "(default: \(Self.defaultCropStyle.rawValue)).",
        valueName: "box|aligned"))
    var cropStyle: CropStyleName?

    static let defaultCropStyle = CropStyleName.box

    @Option(help: ArgumentHelp("With --crops: the files' format, jpg (quality \(Self.cropQuality)) or png (lossless) (default: \(Self.defaultCropFormat.rawValue)).", valueName: "jpg|png"))
    var cropFormat: CropFormat?

    static let defaultCropFormat = CropFormat.jpg
    /// The JPEG quality of the crops.
    static let cropQuality = 95

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --crop-style box: the margin on each side, as a share of the box's width and height (default: "
            + "\(decimal(FaceCropStyle.defaultMargin))).", valueName: "F"))
    var cropMargin: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --crop-style aligned: the crops' side in pixels, 16 to 1024 (default: \(FaceCropStyle.defaultAlignedSize)).",
        valueName: "N"))
    var cropSize: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Exit with status 2 when some frame has fewer faces than this, or no frame was read; the first such frame is named.", valueName: "N"))
    var minFaces: Int?

    func validate() throws {
        if let minFaces, minFaces < 0 { throw ValidationError("--min-faces must be 0 or more") }
        if crops == nil, let option = [("--crop-style", cropStyle != nil), ("--crop-margin", cropMargin != nil), ("--crop-size", cropSize != nil),
                                             ("--crop-format", cropFormat != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) says how --crops cuts faces out: add --crops DIR, or leave \(option) out")
        }
        if let crops, let annotate, URL(fileURLWithPath: crops).standardizedFileURL.path == URL(fileURLWithPath: annotate).standardizedFileURL.path {
            throw ValidationError("--crops and --annotate name one directory, where their files would overwrite each other: give two")
        }
        if cropMargin != nil, cropStyle == .aligned {
            throw ValidationError("--crop-margin widens box crops; aligned crops are sized by --crop-size: leave --crop-margin out")
        }
        if cropSize != nil, cropStyle != .aligned {
            throw ValidationError("--crop-size sizes aligned crops: add --crop-style aligned, or leave --crop-size out")
        }
        if let cropMargin, !(0...2).contains(cropMargin) { throw ValidationError("--crop-margin must be from 0 to 2") }
        if let cropSize, !(16...1024).contains(cropSize) { throw ValidationError("--crop-size must be from 16 to 1024") }
    }

    /// How --crops cuts faces out; nil without it.
    var cropStyleChosen: FaceCropStyle? {
        guard crops != nil else { return nil }
        return (cropStyle ?? Self.defaultCropStyle) == .aligned
            ? .aligned(size: cropSize ?? FaceCropStyle.defaultAlignedSize) : .box(margin: cropMargin ?? FaceCropStyle.defaultMargin)
    }

    /// The crops asked of a frame named `name`, or nil without --crops.
    func cropRequest(name: String) -> CropRequest? {
        cropStyleChosen.map { CropRequest(style: $0, name: name) }
    }

    /// Aligned crops, and best shots (ranked by quality), need landmarks; a pose or quality asked for
    /// needs a format with a place for it.
    func validateFaceOutputs(with detector: DetectorOptions, faces: FaceReportOptions) throws {
        try faces.recognition.validate(format: format)
        if let option = [("--pose", faces.pose), ("--quality", faces.quality)].first(where: \.1)?.0, !format.holds(.poseAndQuality) {
            throw ValidationError("--format \(format.rawValue) has no place for what \(option) reports: use "
                + "\(ResultFormat.names { $0.holds(.poseAndQuality) }), or leave \(option) out")
        }
        if cropStyle == .aligned, !detector.kind.givesScoresAndLandmarks {
            throw ValidationError(
                "--crop-style aligned places the landmarks the \(detector.kind.id) detector does not give: add --detector yunet, or use box crops")
        }
    }

    /// Refuses a folder format without `folder` (an --output-dir), and --output beside a folder: usage errors.
    func validateFolder(_ folder: String?) throws {
        if format.isFolderOnly, folder == nil {
            throw ValidationError("--format \(format.rawValue) writes a folder of files: give --output-dir DIR")
        }
        if format.isFolderOnly, output != nil {
            throw ValidationError("--format \(format.rawValue) writes a folder: give --output-dir DIR instead of --output")
        }
        if folder != nil, output != nil {
            throw ValidationError("--output-dir and --output both say where results go: choose one")
        }
    }
}

/// --crop-style's values.
enum CropStyleName: String, ExpressibleByArgument, CaseIterable {
    case box, aligned
}

/// --crop-format's values.
enum CropFormat: String, ExpressibleByArgument, CaseIterable {
    case jpg, png
}

/// --annotate-every (video, live): 1 or more, and only with --annotate, which it thins out.
struct AnnotateEveryOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("With --annotate, save every Nth detected frame only (default: \(Self.defaultInterval)).", valueName: "N"))
    var annotateEvery: Int?

    static let defaultInterval = 1
    var interval: Int { annotateEvery ?? Self.defaultInterval }

    func validate(with output: OutputOptions) throws {
        guard let annotateEvery else { return }
        if annotateEvery < 1 { throw ValidationError("--annotate-every must be 1 or more") }
        if output.annotate == nil { throw ValidationError("--annotate-every goes with --annotate DIR, which it thins out") }
    }
}

/// --recursive (detect, video).
struct FolderOptions: ParsableArguments {
    @Flag(help: "Descend into subdirectories of the directories given.")
    var recursive = false
}

/// --best-shot (video and live, which follow faces from frame to frame).
struct BestShotOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "With --crops: save one crop per track, its face of highest --quality (implied), when the track ends or the "
            + "input does, with a record on standard output (JSON Lines and text), instead of a crop per face and frame."))
    var bestShot = false

    /// Best shots are crops, recorded per track, and ranked by a quality that reads landmarks.
    func validate(with output: OutputOptions, detector: DetectorOptions) throws {
        guard bestShot else { return }
        if output.crops == nil {
            throw ValidationError("--best-shot says how --crops cuts faces out: add --crops DIR, or leave --best-shot out")
        }
        if !output.format.hasEvents {
            throw ValidationError(
                "--best-shot writes a record per track, which has no place in \(output.format.rawValue): use --format jsonl or text")
        }
        if !detector.kind.givesScoresAndLandmarks {
            throw ValidationError(
                "--best-shot ranks faces by a quality that reads the landmarks the \(detector.kind.id) detector does not give: add --detector yunet")
        }
    }

    /// `faces` with --quality on when --best-shot needs it: a track's best shot is its face of highest quality.
    func implyingQuality(_ faces: FaceReport) -> FaceReport {
        var faces = faces
        if bestShot { faces.quality = true }
        return faces
    }
}

/// --image-root (detect and video, whose inputs are files a dataset names).
struct DatasetOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "With a dataset format (\(ResultFormat.names { $0.namesImages })): name images by their path relative to this directory, "
            + "the dataset's image folder a labelling tool imports from (default: the paths as given).", valueName: "dir"))
    var imageRoot: String?

    func validate(with output: OutputOptions) throws {
        if imageRoot != nil, !output.format.namesImages {
            throw ValidationError("--image-root names images in the dataset formats (\(ResultFormat.names { $0.namesImages })): "
                + "add one, or leave --image-root out")
        }
    }
}
