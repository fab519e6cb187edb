import ArgumentParser
import FaceCam
import Foundation

struct Video: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in every frame of video files (anything FFmpeg reads).",
        discussion: """
            Frames are decoded with OpenCV's VideoCapture (FFmpeg back end), detected on --jobs \
            threads and written in frame order: the same file and options give the same output \
            whatever --jobs is. The file's rotation metadata is applied first, then --orientation. \
            A damaged or truncated file is reported after the frames that decoded, and the next \
            file is read; the exit status is then 1.
            """)

    @Argument(help: ArgumentHelp("Video files.", valueName: "file"))
    var files: [String]

    @Option(help: ArgumentHelp("Detect on every Nth frame only; the others are skipped and not reported.", valueName: "N"))
    var every = 1

    @Option(help: ArgumentHelp("With --annotate, save every Nth detected frame only.", valueName: "N"))
    var annotateEvery = 1

    @Option(help: ArgumentHelp("Write the preview of every detected frame, faces outlined, as a video (.avi, .mkv, .mp4).", valueName: "file"))
    var annotateVideo: String?

    @Flag(help: "No progress bar on standard error.")
    var quiet = false

    @OptionGroup(title: "Detector") var detector: DetectorOptions
    @OptionGroup(title: "Tracking") var tracking: TrackingOptions
    @OptionGroup(title: "Geometry") var geometry: GeometryOptions
    @OptionGroup(title: "Output") var output: OutputOptions

    func validate() throws {
        guard every >= 1 else { throw ValidationError("--every must be 1 or more") }
        guard annotateEvery >= 1 else { throw ValidationError("--annotate-every must be 1 or more") }
        if annotateVideo != nil, files.count != 1 {
            throw ValidationError("--annotate-video takes one input file; run facecam once per file")
        }
    }

    func run() throws {
        let progress = quiet ? nil : ProgressBar(every: every)
        var videoOutput: (path: String, framesPerSecond: Double)?
        if let annotateVideo {
            do {
                // The annotated video plays at the source's rate, less the frames --every skips.
                videoOutput = (annotateVideo, try VideoReader(path: files[0]).info.framesPerSecond / Double(every))
            } catch {
                report(error.description)
                throw Status.failure
            }
        }
        var advance: (@Sendable (FrameResult) -> Void)?
        if let progress { advance = { progress.advance($0) } }
        let session = try Session(
            detector: detector, output: output, tracker: tracking.makeTracker(), videoOutput: videoOutput, progress: advance)
        for file in files where !session.sink.stopped {
            do throws(FaceCamError) {
                try submitFrames(of: file, to: session, progress: progress)
            } catch {
                session.pipeline.submit(failure: error)
            }
        }
        session.pipeline.finish()
        progress?.end()
        try session.finish()
    }

    private func submitFrames(of file: String, to session: Session, progress: ProgressBar?) throws(FaceCamError) {
        let reader = try VideoReader(path: file)
        var settings = geometry.settings
        settings.orientation = reader.info.rotation.followed(by: settings.orientation)
        let geometry = try settings.geometry(for: reader.info.size, source: file)
        progress?.expect(file: file, frames: reader.info.frameCount)
        var detected = 0
        while !session.sink.stopped {
            let index = reader.nextIndex
            let wanted = index % every == 0
            guard let (frame, time) = try reader.next(decode: wanted) else { break }
            guard let frame else { continue }
            let annotate = output.annotate != nil && detected % annotateEvery == 0
            detected += 1
            session.pipeline.submit(FrameJob(
                source: file, index: index, time: time, frame: frame, geometry: geometry,
                renderPreview: annotateVideo != nil,
                annotationName: annotate ? String(format: "%@-%06d", stem(of: file), index) : nil))
        }
        let announced = reader.info.frameCount
        if !session.sink.stopped, reader.nextIndex < announced {
            throw .videoFrame(
                path: file, frame: reader.nextIndex,
                reason: "no frame can be read here, but the file announces \(announced): truncated or damaged")
        }
    }
}
