import FaceCam
import FaceCamRecognition
import Foundation
import Synchronization

/// What a run's detectors will be, decided from the parsed options alone: nothing is read or loaded to make it, so
/// it is checked in process. `build` carries it out: it loads the engine and the models and sets OpenCV's pool.
struct DetectorPlan {
    /// The cores this process may use.
    static let cores = OpenCVThreads.usableCores

    /// The most jobs a run takes: twice the cores this process may use. More only add a model's memory each and switching
    /// (--jobs 256 on 2 cores took 94 s and 1.6 GB for a clip the default does in 5 s).
    static let mostJobs = 2 * cores

    let options: DetectorOptions
    /// --focus: the networks' larger scales searched in tiles only.
    let focused: Bool
    /// Fast mode's settings; live Haar fast mode searches in full in the background (`FastSettings.searchInBackground`).
    let fast: FastSettings?
    /// Detectors made, one per frame detected at once.
    let jobs: Int
    /// Threads each engine uses inside a detection (`OpenCVThreads.count`, OpenVINO's).
    let threads: Int
    /// Said before anything is loaded: --jobs or --threads beyond what this process can use.
    let warnings: [String]

    /// `given` is --jobs as given; `live` runs one job, its frames in order.
    init(_ options: DetectorOptions, focused: Bool = false, jobs given: Int?, fast: FastSettings? = nil, live: Bool = false) {
        self.options = options
        self.focused = focused
        var fast = fast
        let background = live && fast != nil && options.kind.fastModeFollowsFaces
        fast?.searchInBackground = background
        self.fast = fast
        // Haar's fast mode follows faces from frame to frame, so it takes them one by one.
        let oneByOne = fast != nil && options.kind.fastModeFollowsFaces
        let jobs = oneByOne ? 1 : min(given ?? Self.cores, Self.mostJobs)
        self.jobs = jobs
        var warnings: [String] = []
        if let given, given > 1, oneByOne {
            warnings.append("warning: --jobs \(given) runs 1 job: Haar's fast mode follows the faces from one frame to the next")
        } else if let given, given > jobs, jobs == Self.mostJobs {
            warnings.append("warning: --jobs \(given) runs \(jobs) jobs, twice the \(Self.cores) cores this process may use: more would only take memory")
        }
        // Threads beyond the cores only wait on each other (and TBB warns of them).
        if let threads = options.threadsOption, threads > Self.cores {
            warnings.append("warning: --threads \(threads) runs \(Self.cores), the cores this process may use")
        }
        threads = min(options.threadsOption ?? (background || jobs > 1 ? DetectorOptions.threadsPerJob : Self.cores), Self.cores)
        self.warnings = warnings
    }

    /// One detector per job, exact or in fast mode; sets OpenCV's pool to `threads` when the command owns the process.
    /// Each is wrapped in `zones` and `faces`'s limit, pose and quality (`FaceReport.wrapping`), then named
    /// (`recognition`). A cascade or model that cannot be loaded, or a describer that cannot be made, is refused (64):
    /// nothing was processed.
    func build(zones: ZoneFilter? = nil, faces: FaceReport = FaceReport(), recognition: Recognition? = nil) throws
        -> [any FrameFaceDetector]
    {
        warnings.forEach { report($0) }
        // The pool is the process's: a command run inside another program leaves it as it is.
        if FaceCamCommand.ownsProcess { OpenCVThreads.count = threads }
        let wrapped: [any FrameFaceDetector]
        do throws(FaceCamError) {
            let (detectors, engine) = try detectors()
            wrapped = try detectors.map { (detector) throws(FaceCamError) in try faces.wrapping(detector, zones: zones, engine: engine) }
        } catch {
            throw Refusal.usage(error.advised)
        }
        // Named last: only the faces kept are described.
        guard let recognition else { return wrapped }
        do throws(RecognitionError) {
            return try wrapped.map { (detector) throws(RecognitionError) in try recognition.wrapping(detector) }
        } catch {
            throw Refusal.usage(advised(error))
        }
    }

    /// The detectors, one per job, and the engine their networks run on (Haar runs none: pose and quality, which need
    /// one, are refused with it).
    private func detectors() throws(FaceCamError) -> ([any FrameFaceDetector], EngineSettings) {
        let (jobs, fast, options, focused) = (jobs, fast, options, focused)
        switch options.kind {
        case .haar:
            let cascade = try Cascade(resolving: options.cascade ?? Cascade.defaultName)
            let detectors = try (0..<jobs).map { _ throws(FaceCamError) -> any FrameFaceDetector in
                let detector = try FaceDetector(cascade: cascade, parameters: options.parameters)
                return if let fast { try FastFaceDetector(detector: detector, settings: fast) } else { detector }
            }
            return (detectors, EngineSettings())
        case .network(let kind):
            let model = if let path = options.model { try FaceModelFile(kind, path: path) } else { try FaceModelFile(shipped: kind) }
            // After the model is found, so that a missing model is the one line said.
            let engine = try engineSettings()
            let yunet = options.plusYuNet == true ? try FaceModelFile(shipped: .yunet) : nil
            let searchWidth = fast?.detectWidth
            let (parameters, scales, sizeCheck) = (options.modelParameters, options.scales, options.sizeCheck)
            func networks(on engine: EngineSettings) throws(FaceCamError) -> [any FrameFaceDetector] {
                try madeSideBySide(jobs) { () throws(FaceCamError) -> any FrameFaceDetector in
                    let detector = try ModelFaceDetector(
                        model: model, parameters: parameters, scales: scales?.values ?? Scales.defaultValues, searchWidth: searchWidth,
                        focused: focused, engine: engine)
                    // Checked before YuNet's faces are added, so that a close-up YuNet found is not left out for
                    // overlapping a faint face the check then drops.
                    let checked: any FrameFaceDetector = sizeCheck == true ? FilteredDetector(detector, SizeCheck.redaction) : detector
                    guard let yunet else { return checked }
                    var yunetParameters = parameters
                    yunetParameters.scoreThreshold = FaceModelKind.yunet.defaultScoreThreshold
                    let companion = try ModelFaceDetector(
                        model: yunet, parameters: yunetParameters, searchWidth: RedactionDefaults.plusYuNetWidth, engine: engine)
                    return FaceDetectorUnion(checked, adding: companion, unlessOverlapping: yunetParameters.nmsThreshold)
                }
            }
            do {
                return (try networks(on: engine), engine)
            } catch where engine.engine == .openvino && options.engine == nil {
                // OpenVINO may fail to read a sound model (its ONNX reader would not load): OpenCV reading it says
                // the model is sound, and runs it. A model neither reads is the model's fault, said as OpenVINO said it.
                var opencv = engine
                opencv.engine = .opencv
                guard let made = try? networks(on: opencv) else { throw error }
                report("OpenVINO could not run the model (\(error)); running on OpenCV's dnn, at about half the speed")
                return (made, opencv)
            }
        }
    }

    /// The engine the DNN models run on: OpenVINO unless told otherwise, loaded here, or OpenCV,
    /// with one line saying why, when OpenVINO was not asked for by name and cannot be loaded.
    private func engineSettings() throws(FaceCamError) -> EngineSettings {
        var precision = options.precision ?? DetectorOptions.defaultPrecision
        if precision == .bf16, !InferencePrecision.cpuHasBF16 {
            report("warning: --precision bf16: this CPU has no bfloat16 arithmetic (avx512_bf16 or amx_bf16), where it runs at "
                + "two to three times f32's time: running f32")
            precision = .f32
        }
        switch options.engine {
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
}

/// `count` detectors made side by side: each compiles its networks, most of a run's start, on one core. The first
/// failure is thrown.
private func madeSideBySide(
    _ count: Int, _ make: @Sendable () throws(FaceCamError) -> any FrameFaceDetector
) throws(FaceCamError) -> [any FrameFaceDetector] {
    let made = Mutex([Int: Result<HandedDetector, FaceCamError>]())
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let result = Result { () throws(FaceCamError) in HandedDetector(try make()) }
        made.withLock { $0[index] = result }
    }
    return try made.withLock { made throws(FaceCamError) in try (0..<count).map { (index) throws(FaceCamError) in try made[index]!.get().detector } }
}
