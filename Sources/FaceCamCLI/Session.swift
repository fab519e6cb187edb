import ArgumentParser
import FaceCam

/// What every detecting command runs frames through: a pipeline of
/// detectors feeding the result sink, and the exit status it all comes to.
struct Session {
    let pipeline: DetectionPipeline
    let sink: ResultSink
    let stop: StopRequest

    /// Builds the `detectors` planned (one per job) and opens the outputs, or refuses (64 for the detector, 1 for the
    /// outputs); `output` (the options, and what the dataset formats
    /// record) nil writes no results (redact, whose results are its files). With a
    /// `resultDirectory`, each input's results are redirected to its own file
    /// (`results(of:shownAs:in:resume:submit:)`); with a dataset `folder`, all results go into it. `faces` says
    /// what is reported of each face (--best-shot's quality implied);
    /// redaction may hold previews back (`lookahead`). From here on SIGINT, SIGTERM and SIGHUP stop between
    /// frames instead of ending the process.
    init(
        detectors plan: DetectorPlan, faces: FaceReport = FaceReport(), recognition: Recognition? = nil, output: (options: OutputOptions, context: ExportContext)?, bestShotsOnly: Bool = false,
        resultDirectory: ResultDirectory? = nil, folder: String? = nil, zones: ZoneFilter? = nil,
        masks: PrivacyMasks = PrivacyMasks(polygons: []),
        tracker: FaceTracker? = nil, events: ResultSink.EventHandling = ResultSink.EventHandling(),
        marking: PreviewMarking = .outline, lookahead: Int = 0, frames: FrameOutput? = nil,
        consumers: [any FrameConsumer] = [], progress: (@Sendable (String) -> Void)? = nil
    ) throws {
        // Tracked faces are named per track, in the sink; sparing stays per frame, where a doubt hides the face.
        let perTrack = tracker != nil && recognition?.spared == nil
        let detectors = try plan.build(zones: zones, faces: faces, recognition: perTrack ? nil : recognition)
        let namer = perTrack ? try recognition?.namer() : nil
        let opened = try output.map { output in
            try RunOutputs(output.options, resultDirectory: resultDirectory, folder: folder, context: output.context)
        }
        let (writer, annotator, cropSaver) = (opened?.writer, opened?.annotator, opened?.cropSaver)
        let sink = ResultSink(
            records: output.map { _ in RecordOutput(writer: writer, clusterer: recognition?.clusterer) },
            tracking: tracker.map { FrameTracking(tracker: $0, namer: namer) }, events: events,
            crops: cropSaver.map { CropOutput(saver: $0, bestShotsOnly: bestShotsOnly) },
            previews: PreviewOutput(marking: marking, annotator: annotator, frames: frames, lookahead: lookahead),
            consumers: consumers, minimumFaces: output?.options.minFaces ?? 0, report: { report($0) }, progress: progress)
        self.sink = sink
        self.pipeline = DetectionPipeline(detectors: detectors, masks: masks) { sink.consume($0) }
        self.stop = StopRequest()
    }

    /// Counts the inputs `withoutMissing` reported before the session began with the run's failures.
    func countReported(missing: Int) {
        sink.countReported(failures: missing)
    }

    /// True when no more frames should be submitted: a signal came, or results can no longer be written.
    var stopping: Bool { stop.requested || sink.stopped }

    /// Reads `source` through the one input loop into the pipeline (`InputLoop.read`: `geometry` nil works out the
    /// source's, `job` makes each frame's job, and the last frame `job` passed over is submitted if
    /// `submittingLastPassedOver`), until it ends or the
    /// run is stopping (or `shouldStop` says stop). What it then has to say, if anything: the frame that could not be
    /// read, what it lost on the way, or why the options do not fit it (for the caller to submit in its place).
    func read<Source: FrameSource>(
        _ source: Source, geometry: PreviewGeometry? = nil, with loop: InputLoop, shouldStop: (() -> Bool)? = nil,
        job: (FrameJob) -> FrameJob? = { $0 }, submittingLastPassedOver: Bool = false
    ) -> FaceCamError? where Source.Failure == FaceCamError {
        do throws(InputLoop.Failure<FaceCamError>) {
            let end = try loop.read(
                source, geometry: geometry, shouldStop: shouldStop ?? { stopping }, job: job, submittingLastPassedOver: submittingLastPassedOver
            ) { pipeline.submit($0) }
            if case .ended(let damage) = end { return damage }
            return nil
        } catch {
            switch error {
            case .source(let error), .geometry(let error): return error
            }
        }
    }

    /// What one input came to (`input(results:frames:_:)`).
    struct InputOutcome {
        /// The sink's counts for this input alone: frames, faces, masks, pixels hidden.
        var counts: ResultSink.Summary
        /// Its frame output failed (already reported).
        var frameOutputFailed: Bool
    }

    /// One input's run: its results go to `writer` (else where the run's go) and its marked frames to
    /// `frames` (else none); once `submit` has submitted its frames, waits for every one, ends the
    /// input's tracks, and takes the frame output away again. The one place the sink is switched
    /// between inputs.
    func input(results writer: ResultWriter? = nil, frames: FrameOutput? = nil, _ submit: () -> Void) -> InputOutcome {
        let before = sink.summary
        if let writer { sink.redirect(to: writer) }
        if let frames { sink.redirect(frames: frames) }
        submit()
        pipeline.finish()
        sink.endSource()
        let failed = sink.frameOutputFailed
        if frames != nil { sink.redirect(frames: nil) }
        return InputOutcome(counts: sink.summary.since(before), frameOutputFailed: failed)
    }

    /// Writes the results of the frames `submit` submits to `input`'s own file
    /// in `directory`, and gives the file its finished name once they are all
    /// written, unless the run is stopping (that input is redone by --resume)
    /// or `submit` says the input could not be read at all: then the partial
    /// file goes with `writer`.
    /// With `resume`, an input whose file is finished is skipped, saying so (naming it `shownAs`).
    func results(
        of input: FilePath, shownAs name: String, in directory: ResultDirectory, resume: Bool, submit: () -> Bool
    ) {
        if resume, directory.isFinished(input) {
            report("skipping \(name): \(directory.finishedPath(for: input)) is finished (--resume)")
            return
        }
        let writer: ResultWriter
        do {
            if resume { try directory.removeLeftovers(for: input) }
            writer = try directory.open(for: input)
        } catch {
            return fail(error)
        }
        var readable = false
        _ = self.input(results: writer) { readable = submit() }
        guard readable, !stopping else { return directory.discard(writer) }
        do {
            try directory.finish(writer)
        } catch {
            fail(error)
        }
    }

    /// Reports an output failure, which stops the run, before the next input is looked at.
    private func fail(_ error: SystemError) {
        pipeline.submit(failure: .output(error))
        pipeline.finish()
    }

    /// Waits for the last results and closes the annotated video. Then exits
    /// 130 or 143 after a signal (saying where it stopped, `position`, and, with a results file
    /// per input, `perInput`, that the input it stopped in has none), 1 if
    /// anything failed, 2 if a frame had fewer faces than --min-faces.
    func finish(position: @autoclosure () -> String, perInput: Bool = false) throws {
        pipeline.finish()
        sink.close(stoppedEarly: stop.requested, stopped: stop.requested)
        try stop.exitIfStopped(at: position(), perInput: perInput)
        try sink.summary.exitStatus()
    }
}

extension ResultSink.Summary {
    /// Exits 1 if anything failed, else 2 if a frame had fewer faces than --min-faces, or if
    /// --min-faces was given and no frame was read (a check of nothing must not pass), saying which.
    func exitStatus() throws {
        // A polygon that does not fit an input is the options' fault, said for that input.
        if polygonsOutside > 0, polygonsOutside == failures { throw Status.usage }
        if failures > 0 { throw Status.failure }
        let faces = minimumFaces == 1 ? "1 face" : "\(minimumFaces) faces"
        if let first = firstFrameBelowMinimum {
            let count = framesBelowMinimum == 1 ? "1 frame has" : "\(framesBelowMinimum) frames have"
            report("\(count) fewer than \(faces) (--min-faces), the first: \(first)")
            throw Status.tooFewFaces
        }
        if minimumFaces > 0, frames == 0 {
            report("no frame was read, so none has \(faces) (--min-faces): check that the inputs hold images")
            throw Status.tooFewFaces
        }
    }
}
