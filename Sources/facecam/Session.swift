import ArgumentParser
import FaceCam

/// What every detecting command runs frames through: a pipeline of
/// detectors feeding the result sink, and the exit status it all comes to.
struct Session {
    let pipeline: DetectionPipeline
    let sink: ResultSink
    let stop: StopRequest

    /// Loads the detector once per job and opens the outputs, or reports why
    /// not and exits (64 for the detector, 1 for the outputs). From here on
    /// SIGINT and SIGTERM stop between frames instead of ending the process.
    init(
        detector options: DetectorOptions, output: OutputOptions, tracker: FaceTracker? = nil,
        events: ResultSink.EventHandling = ResultSink.EventHandling(), video: VideoWriter? = nil, progress: (@Sendable (FrameResult) -> Void)? = nil
    ) throws {
        let detectors = try options.makeDetectors()
        let (writer, annotator) = try output.makeSinks()
        let sink = ResultSink(
            writer: writer, tracker: tracker, events: events, annotator: annotator, video: video, minimumFaces: output.minFaces ?? 0,
            report: { report($0) }, progress: progress)
        self.sink = sink
        self.pipeline = DetectionPipeline(detectors: detectors) { sink.consume($0) }
        self.stop = StopRequest()
    }

    /// True when no more frames should be submitted: a signal came, or results can no longer be written.
    var stopping: Bool { stop.requested || sink.stopped }

    /// Waits for the last results and closes the annotated video. Then exits
    /// 130 or 143 after a signal (saying where it stopped, `position`), 1 if
    /// anything failed, 2 if a frame had fewer faces than --min-faces.
    func finish(position: @autoclosure () -> String) throws {
        pipeline.finish()
        sink.close()
        try stop.exitIfStopped(at: position())
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
