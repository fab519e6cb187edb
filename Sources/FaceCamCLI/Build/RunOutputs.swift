import FaceCam

/// What a run writes besides its frames, opened from the output options (which only parse): the results, the annotated
/// JPEGs and the crops.
struct RunOutputs {
    var writer: ResultWriter?
    var annotator: Annotator?
    var cropSaver: Annotator?

    /// Opens the results (the dataset `folder`, or creates `resultDirectory`, whose files are opened input by input,
    /// or --output, else standard output) and the annotation and crop directories, or refuses (1) saying why not.
    init(_ options: OutputOptions, resultDirectory: ResultDirectory? = nil, folder: String? = nil, context: ExportContext) throws {
        do {
            if let resultDirectory {
                try resultDirectory.create()
                writer = nil
            } else if let folder {
                writer = try ResultWriter(format: options.format, path: folder, folder: true, context: context)
            } else {
                writer = try ResultWriter(format: options.format, path: options.output, context: context)
            }
            annotator = try options.annotate.map { (directory) throws(SystemError) in try Annotator(directory: directory) }
            cropSaver = try options.crops.map { (directory) throws(SystemError) in
                try Annotator(
                    directory: directory, quality: OutputOptions.cropQuality,
                    fileExtension: (options.cropFormat ?? OutputOptions.defaultCropFormat).rawValue, what: "face crop")
            }
        } catch {
            throw Refusal.failure("cannot open \(error.path ?? "output"): \(error.reason)")
        }
    }
}

extension RunOutputs {
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

    /// Refuses (64), before anything is opened for writing: an output file (--output, `extra`) or folder (--annotate,
    /// --crops) that would overwrite one of `inputs`, or the `gallery` (see the other `refuseOverwriting`).
    static func refuseOverwriting(
        _ inputs: [FilePath], by options: OutputOptions, alsoWriting extra: [(option: String, path: String)] = [], gallery: [FilePath] = []
    ) throws(Refusal) {
        try refuseOverwriting(
            inputs, files: (options.output.map { [("--output", $0)] } ?? []) + extra,
            directories: (options.annotate.map { [("--annotate", $0)] } ?? []) + (options.crops.map { [("--crops", $0)] } ?? []),
            gallery: gallery)
    }

    /// Refuses (64), before anything is opened for writing: an output file (`files`, each named by its option) that would
    /// overwrite the `gallery`, a folder option (`directories`) naming something that is there and is no folder (said once,
    /// not once per image), and an output file or folder that would overwrite one of `inputs`.
    static func refuseOverwriting(
        _ inputs: [FilePath], files: [(option: String, path: String)], directories: [(option: String, path: String)] = [],
        gallery: [FilePath] = []
    ) throws(Refusal) {
        try refuseOverwriting(gallery: gallery, by: files)
        for (option, path) in directories {
            if let kind = try? fileKind(path), kind != .directory {
                throw .usage("\(option) \(FilePath(path)) is \(kind == .regular ? "a file" : "a FIFO, socket or device"), not a folder: "
                    + "give a folder (made when missing)")
            }
        }
        if let conflict = OutputSafety.conflict(files: files, directories: directories, inputs: inputs) { throw .usage(conflict) }
    }

    /// Refuses (64) an output file that is one of the gallery's files (`GalleryOptions.guarded`): results written there
    /// would erase everyone enrolled.
    private static func refuseOverwriting(gallery: [FilePath], by outputs: [(option: String, path: String)]) throws(Refusal) {
        for (option, path) in outputs where OutputSafety.conflict(files: [(option, path)], directories: [], inputs: gallery) != nil {
            throw .usage("\(option) \(path) is the gallery of enrolled people: results written there would erase them; choose another file")
        }
    }

    /// Refuses (64) an --image-root that is not a directory, and an input outside it, whose name could not be made
    /// relative to it.
    static func refuseInputsOutside(_ inputs: [FilePath], imageRoot: String?) throws(Refusal) {
        guard let imageRoot else { return }
        let root = ImageRoot(imageRoot)
        if !root.isDirectory { throw .usage("--image-root \(imageRoot) is not a directory: give the dataset's image folder") }
        if let outside = inputs.first(where: { !root.holds($0.description) }) {
            throw .usage("\(outside) is not inside --image-root \(imageRoot): give inputs under it, or another --image-root")
        }
    }

    /// What the sink does with track events (`TrackingOptions`): written with --events, run with --on-event (timed by the
    /// run's `clock`), and ending the run at `exitOn`.
    static func events(_ tracking: TrackingOptions, exitOn: TrackEvent.Kind? = nil, clock: any MonotonicClock) -> ResultSink.EventHandling {
        let hooks = tracking.onEvent.map { command in
            EventHooks(
                command: command, concurrency: tracking.onEventJobs ?? TrackingOptions.onEventJobsDefault,
                timeout: tracking.onEventTimeout ?? TrackingOptions.onEventTimeoutDefault, clock: clock,
                report: { report("--on-event: \($0)") })
        }
        return ResultSink.EventHandling(write: tracking.events, exitOn: exitOn, hooks: hooks)
    }
}
