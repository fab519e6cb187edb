import ArgumentParser
import FaceCam
import Foundation

extension PixelSize: ExpressibleByArgument {}
extension PixelRect: ExpressibleByArgument {}
extension Rect: ExpressibleByArgument {}
extension Orientation: ExpressibleByArgument {
    public static var allValueStrings: [String] { allCases.map(\.name) }
}
extension Gravity: ExpressibleByArgument {}
extension ResultFormat: ExpressibleByArgument {}

/// Where the frame's content appears: aperture, orientation, mirroring, preview and gravity.
struct GeometryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Clean aperture: the part of the frame that is shown and searched (default: the whole frame).",
        valueName: "x,y,w,h"))
    var aperture: PixelRect?

    @Option(help: ArgumentHelp(
        "How the frame must be turned to be upright: an EXIF orientation 1-8, or its name.",
        valueName: "orientation"))
    var orientation: Orientation = .up

    @Flag(help: "Mirror the preview left to right, as a front camera's preview shows it.")
    var mirror = false

    @Option(help: ArgumentHelp(
        "Preview size that preview rects refer to (default: the upright aperture's size).", valueName: "WxH"))
    var preview: PixelSize?

    @Option(help: "How the video is scaled into the preview: resize (stretch), aspect (fit, bars), fill (cover, crop).")
    var gravity: Gravity = .aspect

    func validate() throws {
        if let aperture, aperture.width <= 0 || aperture.height <= 0 {
            throw ValidationError("--aperture \(aperture) is empty: give a positive width and height")
        }
        if let aperture, aperture.x < 0 || aperture.y < 0 {
            throw ValidationError("--aperture \(aperture) starts outside the frame: x and y must be 0 or more")
        }
        if let preview, preview.width <= 0 || preview.height <= 0 {
            throw ValidationError("--preview \(preview) is empty: give a positive width and height")
        }
    }

    var settings: GeometrySettings {
        GeometrySettings(aperture: aperture, orientation: orientation, mirrored: mirror, previewSize: preview, gravity: gravity)
    }
}

/// The cascade and detectMultiScale's parameters.
struct DetectorOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Cascade name (looked up in /usr/share/opencv4/haarcascades and lbpcascades) or path to a cascade XML file.",
        valueName: "name|path"))
    var cascade = Cascade.defaultName

    @Option(help: "How much the search window grows between scales (greater than 1).")
    var scaleFactor = 1.1

    @Option(help: "How many overlapping detections a face needs to be kept.")
    var minNeighbors = 3

    @Option(help: ArgumentHelp("Smallest face searched for, in upright pixels.", valueName: "N|WxH"))
    var minSize = PixelSize(width: 30, height: 30)

    @Option(help: ArgumentHelp("Largest face searched for (default: no limit).", valueName: "N|WxH"))
    var maxSize: PixelSize?

    @Option(help: ArgumentHelp("Frames detected in parallel (default: the number of cores; fast mode uses one).", valueName: "N"))
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Fast mode: full searches on a shrunk frame every few frames, and between them only around the faces already found (see README).")
    var fast = false

    @Option(help: ArgumentHelp("In fast mode, the width full searches shrink the frame to.", valueName: "W"))
    var detectWidth = FastSettings().detectWidth

    @Option(help: ArgumentHelp("In fast mode, a full search at least every N frames (and whenever a face is lost).", valueName: "N"))
    var fullSearchEvery = FastSettings().fullSearchEvery

    @Option(name: .customLong("opencv-threads"), help: ArgumentHelp(
        "Threads OpenCV's own pool uses inside each detection (default: 1 with more than one job, else the number of cores).",
        valueName: "N"))
    var openCVThreadsOption: Int?

    /// Frames detected at once: fast mode follows faces from frame to frame, so it takes them one by one.
    var effectiveJobs: Int { fast ? 1 : jobs }

    /// With several jobs OpenCV's pool would split each frame's search over
    /// cores the jobs already use; `make bench` measures the arrangements side
    /// by side, and one job per core with OpenCV on one thread came out faster.
    var openCVThreads: Int {
        openCVThreadsOption ?? (effectiveJobs > 1 ? 1 : ProcessInfo.processInfo.activeProcessorCount)
    }

    func validate() throws {
        guard scaleFactor > 1, scaleFactor.isFinite else {
            throw ValidationError("--scale-factor \(scaleFactor) must be a number greater than 1, such as 1.1")
        }
        guard minNeighbors >= 0 else { throw ValidationError("--min-neighbors must be 0 or more") }
        guard (1...256).contains(jobs) else { throw ValidationError("--jobs must be from 1 to 256") }
        if let openCVThreadsOption, !(1...256).contains(openCVThreadsOption) {
            throw ValidationError("--opencv-threads must be from 1 to 256")
        }
        guard detectWidth >= 40 else { throw ValidationError("--detect-width must be 40 or more") }
        guard fullSearchEvery >= 1 else { throw ValidationError("--full-search-every must be 1 or more") }
        guard minSize.width >= 0, minSize.height >= 0 else { throw ValidationError("--min-size must not be negative") }
        if let maxSize {
            guard maxSize.width > 0, maxSize.height > 0 else { throw ValidationError("--max-size must be positive") }
            guard maxSize.width >= minSize.width, maxSize.height >= minSize.height else {
                throw ValidationError("--max-size \(maxSize) is smaller than --min-size \(minSize)")
            }
        }
    }

    var parameters: DetectorParameters {
        DetectorParameters(scaleFactor: scaleFactor, minNeighbors: minNeighbors, minSize: minSize, maxSize: maxSize)
    }

    /// One detector per job, exact or fast; sets OpenCV's pool to match. Live
    /// fast mode runs its full searches in the background, on a core of their own.
    func makeDetectors(live: Bool = false) throws -> [any FrameFaceDetector] {
        let background = live && fast
        OpenCVThreads.count = openCVThreadsOption ?? (background ? 1 : openCVThreads)
        let settings = FastSettings(detectWidth: detectWidth, fullSearchEvery: fullSearchEvery, searchInBackground: background)
        return try (0..<effectiveJobs).map { _ in
            let detector = try makeDetector()
            guard fast else { return detector }
            do throws(FaceCamError) {
                return try FastFaceDetector(detector: detector, settings: settings)
            } catch {
                report(error.description)
                throw Status.usage
            }
        }
    }

    /// Loads the cascade, or reports why not and exits with the usage status.
    func makeDetector() throws -> FaceDetector {
        do {
            return try FaceDetector(cascade: Cascade(resolving: cascade), parameters: parameters)
        } catch {
            report(error.description)
            throw Status.usage
        }
    }
}

/// Where and how results go.
struct OutputOptions: ParsableArguments {
    @Option(help: "Result format: jsonl (one JSON object per frame), csv (one row per face), text.")
    var format: ResultFormat = .jsonl

    @Option(name: .shortAndLong, help: ArgumentHelp("Write results to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Save each frame as the preview shows it, faces outlined, as a JPEG in this directory.", valueName: "dir"))
    var annotate: String?

    @Option(help: ArgumentHelp("Exit with status 2 when some frame has fewer faces than this.", valueName: "N"))
    var minFaces: Int?

    func validate() throws {
        if let minFaces, minFaces < 0 { throw ValidationError("--min-faces must be 0 or more") }
    }

    /// Opens the output and annotation directory, or reports why not and exits with status 1.
    func makeSinks() throws -> (ResultWriter, Annotator?) {
        do {
            let writer = try ResultWriter(format: format, path: output)
            let annotator = try annotate.map { (directory) throws(SystemError) in try Annotator(directory: directory) }
            return (writer, annotator)
        } catch {
            report("cannot open \(error.path ?? "output"): \(error.reason)")
            throw Status.failure
        }
    }
}

/// Face ids from frame to frame (video and live).
struct TrackingOptions: ParsableArguments {
    @Flag(help: "Smooth each face's box over time (an exponential moving average keeping half of the last box).")
    var smooth = false

    @Option(help: ArgumentHelp("Frames a face may go undetected before its id ends.", valueName: "N"))
    var trackGrace = TrackerSettings().grace

    func validate() throws {
        guard trackGrace >= 0 else { throw ValidationError("--track-grace must be 0 or more") }
    }

    func makeTracker() -> FaceTracker {
        FaceTracker(settings: TrackerSettings(grace: trackGrace, smoothing: smooth ? 0.5 : nil))
    }
}
