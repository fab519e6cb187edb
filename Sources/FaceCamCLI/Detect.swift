import ArgumentParser
import FaceCam

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in still images (JPEG, PNG and other formats OpenCV reads).",
        discussion: """
            Directories are read in name order; only their image files (by extension) are taken, \
            and subdirectories only with --recursive. An input that cannot be read is reported on \
            standard error and the rest are still processed; the exit status is then 1.
            """ + guidePointer("docs/batch.md", manual: "facecam-detect"))

    @Argument(help: ArgumentHelp("Image files and directories of images.", valueName: "path"))
    var paths: [String]

    @OptionGroup var folders: FolderOptions

    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Detector") var focus: FocusOptions
    @OptionGroup(title: "Detector") var parallelism: JobsOptions
    @OptionGroup(title: "Faces reported") var faces: FaceReportOptions
    @OptionGroup(title: "Faces reported") var clustering: ClusterOptions
    @OptionGroup(title: "Geometry") var geometry: GeometryOptions
    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "Output") var dataset: DatasetOptions
    @OptionGroup(title: "Overlay") var overlay: OverlayOptions
    @OptionGroup(title: "Zones") var zones: ZoneOptions
    @OptionGroup(title: "Zones") var maskZones: MaskZoneOptions

    @Option(help: ArgumentHelp("With --format \(ResultFormat.names { $0.canWriteFolder }): the dataset folder written, a file per image.", valueName: "dir"))
    var outputDir: String?

    func validate() throws {
        try detector.refuseForeignOptions()
        try focus.validate(with: detector)
        try faces.validate(with: detector, hiding: nil, minimumFaces: output.minFaces)
        try faces.recognition.validateDescriptors(clustering: clustering)
        try output.validateFaceOutputs(with: detector, faces: faces)
        try clustering.validate(format: output.format)
        try dataset.validate(with: output)
        try overlay.validate(previews: [("--annotate", output.annotate != nil)], detector: detector, redacting: false)
        if output.format.isVideoOnly {
            throw ValidationError("--format \(output.format.rawValue) is for videos (video, live): its lines number frames and follow ids")
        }
        try output.validateFolder(outputDir)
        if outputDir != nil, !output.format.canWriteFolder {
            throw ValidationError("--output-dir is for the folder formats (\(ResultFormat.names { $0.canWriteFolder })): give --output FILE for \(output.format.rawValue)")
        }
    }

    /// --jobs as given, else `JobsOptions.photographJobs` for one input that is not a folder; nil leaves it to `DetectorPlan`.
    static func jobs(given: Int?, inputs: [FilePath]) -> Int? {
        given ?? (inputs.count == 1 && (try? fileStatus(inputs[0]).kind) != .directory ? JobsOptions.photographJobs : nil)
    }

    func run() throws {
        let given = paths.map(FilePath.init(argument:))
        try RunOutputs.refuseOverwriting(given, by: output, gallery: RecognitionPlan.guarded(faces.recognition.galleryOptions, when: faces.recognition.recognize))
        try RunOutputs.refuseInputsOutside(given, imageRoot: dataset.imageRoot)
        // The picture is read before any work: one that cannot be used is a usage error.
        let marking = try RunPictures.marking(overlay: overlay)
        let (inputs, missing) = withoutMissing(given)
        if inputs.isEmpty { throw Status.failure }
        let (zoneSettings, masks) = (zones.settings, maskZones.masks)
        let context = RunOutputs.context(
            detector: detector, faces: faces.report, video: false, dataset: dataset, recognition: faces.recognition, clustering: clustering)
        let session = try Session(
            detectors: DetectorPlan(detector, focused: focus.focused, jobs: Self.jobs(given: parallelism.jobs, inputs: inputs)), faces: faces.report, recognition: try RecognitionPlan.recognition(faces.recognition, clustering: clustering),
            output: (output, context), folder: outputDir, zones: zoneSettings, masks: masks, marking: marking)
        session.countReported(missing: missing)
        let inputLoop = geometry.inputLoop(zones: zoneSettings, masks: masks)
        var last: String?
        for item in StillImageInputs(paths: inputs, recursive: folders.recursive) {
            if session.stopping { break }
            do throws(FaceCamError) {
                switch item {
                case .failure(let error):
                    throw error
                case .empty(let directory):
                    warn(directory, recursion: folders.recursive ? nil : "--recursive")
                case .passedOver(let passed):
                    warn(passed, readingVideos: false)
                case .file(let path):
                    last = path.description
                    let source = try StillImageSource(path: path, maximumPixels: input.maximumPixels)
                    // Once decoded, a photograph is detected even if a stop comes now: the stop's message names it as done.
                    let failure = session.read(source, with: inputLoop, shouldStop: { false }, job: { job in
                        var job = job
                        job.annotationName = output.annotate == nil ? nil : path.stem
                        job.crops = output.cropRequest(name: path.stem)
                        return job
                    })
                    if let failure { throw failure }
                }
            } catch {
                session.pipeline.submit(failure: error)
            }
        }
        try session.finish(position: last.map { "after \($0)" } ?? "before the first input")
    }
}
