import ArgumentParser
import FaceCam

/// What every detecting command runs frames through: a pipeline of
/// detectors feeding the result sink, and the exit status it all comes to.
struct Session {
    let pipeline: DetectionPipeline
    let sink: ResultSink

    /// Loads the cascade once per job and opens the outputs, or reports why
    /// not and exits (64 for the cascade, 1 for the outputs).
    init(
        detector options: DetectorOptions, output: OutputOptions, tracker: FaceTracker? = nil,
        videoOutput: (path: String, framesPerSecond: Double)? = nil,
        progress: (@Sendable (FrameResult) -> Void)? = nil
    ) throws {
        let detectors = try options.makeDetectors()
        let (writer, annotator) = try output.makeSinks()
        let sink = ResultSink(
            writer: writer, tracker: tracker, annotator: annotator, videoOutput: videoOutput,
            minimumFaces: output.minFaces ?? 0,
            report: { report($0) }, progress: progress)
        self.sink = sink
        self.pipeline = DetectionPipeline(detectors: detectors) { sink.consume($0) }
    }

    /// Waits for the last results, then exits 1 if anything failed, 2 if a
    /// frame had fewer faces than --min-faces.
    func finish() throws {
        pipeline.finish()
        try sink.summary.exitStatus()
    }
}

extension ResultSink.Summary {
    /// Exits 1 if anything failed, else 2 if a frame had fewer faces than --min-faces.
    func exitStatus() throws {
        if failures > 0 { throw Status.failure }
        if framesBelowMinimum > 0 { throw Status.tooFewFaces }
    }
}
