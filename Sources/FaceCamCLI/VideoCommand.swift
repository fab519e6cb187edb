import ArgumentParser
import FaceCam
import Foundation

struct Video: ParsableCommand, FrameOutputCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in every frame of video files and streams (anything FFmpeg reads).",
        discussion: """
            Frames are decoded with OpenCV's VideoCapture (FFmpeg back end), detected on --jobs \
            threads and written in frame order: the same file and options give the same output \
            whatever --jobs is. The file's rotation metadata is applied first, then --orientation. \
            Reading goes on past damaged frames as far as FFmpeg can; the frames lost, or a file \
            that ends early, are reported in one line after the frames that decoded, and the next \
            file is read; the exit status is then 1. Ctrl-C or SIGTERM finishes the frames in hand, \
            closes the annotated video and exits 130 or 143.
            """ + guidePointer("docs/batch.md", manual: "facecam-video"))

    @Argument(help: ArgumentHelp(
        "Video files, directories of them (their video files by extension, in name order), URLs FFmpeg reads "
            + "(http, https, rtsp, rtmp, udp, ...), or - for standard input (more with --files-from).",
        valueName: "file|dir|URL|-"))
    var files: [String] = []

    @OptionGroup var folders: FolderOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Detect on every Nth frame only; the others are skipped and not reported.", valueName: "N"))
    var every = Self.defaultEvery

    /// Every frame is searched unless --every says otherwise.
    static let defaultEvery = 1

    @OptionGroup var annotateEvery: AnnotateEveryOptions

    @Option(help: ArgumentHelp("Write the preview of every detected frame, faces outlined, as a video (.avi, .mkv, .mp4).", valueName: "file"))
    var annotateVideo: String?

    @OptionGroup(title: "Progress") var progressOptions: ProgressOptions

    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Streams") var stream: StreamOptions
    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Detector") var focus: FocusOptions
    @OptionGroup(title: "Detector") var parallelism: JobsOptions
    @OptionGroup(title: "Faces reported") var faces: FaceReportOptions
    @OptionGroup(title: "Faces reported") var clustering: ClusterOptions
    @OptionGroup(title: "Fast mode") var fastMode: FastModeOptions
    @OptionGroup(title: "Tracking") var tracking: TrackingOptions
    @OptionGroup(title: "Zones") var zones: ZoneOptions
    @OptionGroup(title: "Zones") var maskZones: MaskZoneOptions
    @OptionGroup(title: "Geometry") var geometry: GeometryOptions
    @OptionGroup(title: "Output") var output: OutputOptions
    @OptionGroup(title: "Output") var bestShot: BestShotOptions
    @OptionGroup(title: "Output") var dataset: DatasetOptions
    @OptionGroup(title: "Redaction") var redaction: PreviewRedactionOptions
    @OptionGroup(title: "Overlay") var overlay: OverlayOptions
    @OptionGroup(title: "Batches") var batch: BatchOptions

    func validate() throws {
        guard every >= 1 else { throw ValidationError("--every must be 1 or more") }
        try validateFrameOutputs(clustering: clustering)
        try clustering.validate(format: output.format)
        try dataset.validate(with: output)
        try batch.validate(with: output)
        try output.validateFolder(batch.outputDir)
        if clustering.cluster, let option = [("--output-dir", batch.outputDir != nil), ("--shard", batch.shard != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("--cluster numbers faces across the whole run, into one file: leave \(option) out")
        }
        let previews = [("--annotate", output.annotate != nil), ("--annotate-video", annotateVideo != nil)]
        try redaction.validate(previews: previews)
        try overlay.validate(previews: previews, detector: detector, redacting: redaction.redact != nil)
        if annotateVideo != nil, files.count != 1 || batch.filesFrom != nil || batch.shard != nil {
            throw ValidationError("--annotate-video takes one input file; run facecam once per file")
        }
    }

    func run() throws {
        // Directories become their video files, before the batch is sharded, so that every shard sees one list.
        let given = try RunInputs(arguments: files, options: batch).batch
        let (all, expansionFailures, empty, passedOver) = StillImageInputs.expanding(
            given, recursive: folders.recursive, extensions: VideoInput.fileExtensions, keepingOthers: true)
        for directory in empty where !all.isEmpty { warn(directory, recursion: folders.recursive ? nil : "--recursive") }
        passedOver.forEach { warn($0, readingVideos: true) }
        if all.isEmpty {
            guard !expansionFailures.isEmpty else {
                throw Refusal.usage("no video files in \(given.map(\.description).joined(separator: ", ")): give video files, or "
                    + "directories holding some (by extension: \(VideoInput.fileExtensions.sorted().joined(separator: ", ")))")
            }
            for failure in expansionFailures { report(advised(failure)) }
            throw Status.failure
        }
        let (inputs, shardNote) = RunInputs.part(of: all, shard: batch.shard)
        if let shardNote { report(shardNote) }
        // Named over the whole batch, so that every shard names an input's files alike.
        let names = InputNames(all)
        let reported = bestShot.implyingQuality(faces.report)
        let context = RunOutputs.context(
            detector: detector, faces: reported, video: true, dataset: dataset, recognition: faces.recognition, clustering: clustering)
        let results = batch.resultDirectory(output: output, names: names, context: context)
        let stream = inputs.firstIndex(where: { $0.description == "-" || $0.description.contains("://") })
        if dataset.imageRoot != nil, let stream {
            throw Refusal.usage("--image-root names files, and input \(stream + 1) is a stream (a URL or standard input): leave out the stream, or --image-root")
        }
        if clustering.cluster, let stream {
            throw Refusal.usage("--cluster writes its records when the run ends, and input \(stream + 1) is a stream (a URL or standard input) that "
                + "may not end: leave out the stream, or --cluster")
        }
        try RunOutputs.refuseInputsOutside(inputs, imageRoot: dataset.imageRoot)
        // MOT's lines name no video, and a CVAT task is one: frames and ids of several would run together in one file.
        if output.format.isOneVideo, all.count > 1, batch.outputDir == nil {
            throw Refusal.usage("--format \(output.format.rawValue) holds one video: give one, or --output-dir for a file per video")
        }
        try RunOutputs.refuseOverwriting(
            inputs, by: output,
            alsoWriting: (annotateVideo.map { [("--annotate-video", $0)] } ?? [])
                + (results?.paths(for: inputs).map { ("--output-dir", $0) } ?? []),
            gallery: RecognitionPlan.guarded(faces.recognition.galleryOptions, when: faces.recognition.recognize))
        guard !inputs.isEmpty else { return }
        // Pictures are read before any work: one that cannot be used is a usage error.
        let marking = try RunPictures.marking(overlay: overlay, redaction: redaction)
        for failure in expansionFailures { report(failure) }
        let (present, missing) = withoutMissing(inputs)
        if present.isEmpty { throw Status.failure }
        let annotated = try openAnnotatedVideo(for: present)
        let progress = ProgressBar.made(progressOptions, every: every)
        var advance: (@Sendable (String) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        let session = try Session(
            detectors: DetectorPlan(detector, focused: focus.focused, jobs: parallelism.jobs, fast: fastMode.settings), faces: reported, recognition: try RecognitionPlan.recognition(faces.recognition, clustering: clustering),
            output: (output, context), bestShotsOnly: bestShot.bestShot, resultDirectory: results,
            folder: batch.writesDatasetFolder(output) ? batch.outputDir : nil, zones: zones.settings, masks: maskZones.masks,
            tracker: tracking.makeTracker(every: every),
            events: RunOutputs.events(tracking, clock: SystemClock()), marking: marking, frames: annotated?.writer,
            progress: advance)
        session.countReported(missing: expansionFailures.count + missing)
        var position = "before the first frame"
        for file in present where !session.stopping {
            let submit = {
                submitFrames(
                    of: file, opened: annotated?.reader, named: names[file], to: session, progress: progress, position: &position)
            }
            if let results {
                session.results(of: file, shownAs: VideoInput(file).description, in: results, resume: batch.resume, submit: submit)
            } else {
                _ = submit()
            }
        }
        session.pipeline.finish()
        progress?.end()
        try session.finish(position: position, perInput: results != nil)
    }

    /// With --annotate-video, its one input, opened (once: a stream cannot be opened twice), and the
    /// video writer, opened before any frame is read so that a bad path costs no work: one line and status 1.
    private func openAnnotatedVideo(for inputs: [FilePath]) throws -> (writer: VideoWriter, reader: VideoReader)? {
        guard let annotateVideo else { return nil }
        do throws(FaceCamError) {
            let reader = try RunInputs.open(inputs[0], stream: stream, limits: input)
            // Zones and masks are checked when the frames are read, as for any input.
            let geometry = try geometry.inputLoop().geometry(of: VideoFileSource(reader: reader))
            // The annotated video plays at the source's rate, less the frames --every skips.
            let writer = try VideoWriter(
                path: annotateVideo, size: geometry.previewSize, framesPerSecond: reader.info.framesPerSecond / Double(every))
            return (writer, reader)
        } catch {
            throw Refusal.failure(error.advised)
        }
    }

    /// Submits `file`'s frames (read from `opened` when it was opened already), and its failures in their place among them;
    /// false when not one frame could be read (the file cannot be opened, or
    /// the geometry options do not fit it).
    private func submitFrames(
        of file: FilePath, opened: VideoReader?, named name: String, to session: Session, progress: ProgressBar?,
        position: inout String
    ) -> Bool {
        let source: VideoFileSource
        let inputLoop = geometry.inputLoop(zones: zones.settings, masks: maskZones.masks)
        let geometry: PreviewGeometry
        do throws(FaceCamError) {
            let reader = if let opened { opened } else { try RunInputs.open(file, stream: stream, limits: input) }
            source = VideoFileSource(reader: reader, decodeEvery: every)
            geometry = try inputLoop.geometry(of: source)
        } catch {
            session.pipeline.submit(failure: error)
            return false
        }
        progress?.expect(file: source.name, frames: source.reader.info.frameCount)
        var detected = 0
        let failure = session.read(source, geometry: geometry, with: inputLoop, job: { job in
            var job = job
            position = "at \(source.name) frame \(job.index)"
            let frameName = String(format: "%@-%06d", name, job.index)
            job.renderPreview = annotateVideo != nil
            job.annotationName = output.annotate != nil && detected % annotateEvery.interval == 0 ? frameName : nil
            job.crops = output.cropRequest(name: frameName)
            detected += 1
            return job
        })
        if let failure { session.pipeline.submit(failure: failure) }
        return true
    }
}
