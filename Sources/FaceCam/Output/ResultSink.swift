import Foundation
import Synchronization

/// Where completions go, in order: results to the writer, previews (marked
/// once tracking has placed the faces) to annotated JPEGs and a frame output
/// (an annotated or redacted video, a redacted image), failures to `report`.
/// Frames come from one thread at a time (the pipeline's delivery queue), failures from any; `stopped`
/// and `summary` may be read from any thread (they live in one `Mutex`). The outputs are the delivery
/// thread's alone: `redirect` replaces them between sources, with no frame in flight.
public final class ResultSink: @unchecked Sendable {
    public struct Summary: Sendable {
        public var frames = 0
        public var faces = 0
        public var failures = 0
        /// Of the failures, inputs refused because a polygon (`--zone`, `--mask-zone`) lies outside their preview.
        public var polygonsOutside = 0
        /// The sink's minimum of faces per frame (`--min-faces`; 0 for none).
        public var minimumFaces = 0
        /// Frames with fewer faces than the minimum, and the first of them ("SOURCE frame N").
        public var framesBelowMinimum = 0
        public var firstFrameBelowMinimum: String?
        /// Faces hidden on previews, the tracked faces the detector missed included.
        public var masks = 0
        /// Of the redacted previews' pixels (`redactedPixels`), those hiding changed: a masked face's
        /// shape, overlaps once.
        public var hiddenPixels = 0
        public var redactedPixels = 0
        /// Previews written to the frame output.
        public var outputFrames = 0

        /// The counts added since `before`, one input's share of the run's (not the minimum, nor the
        /// first frame below it).
        public func since(_ before: Self) -> Self {
            var added = Self()
            added.frames = frames - before.frames
            added.faces = faces - before.faces
            added.failures = failures - before.failures
            added.polygonsOutside = polygonsOutside - before.polygonsOutside
            added.framesBelowMinimum = framesBelowMinimum - before.framesBelowMinimum
            added.masks = masks - before.masks
            added.hiddenPixels = hiddenPixels - before.hiddenPixels
            added.redactedPixels = redactedPixels - before.redactedPixels
            added.outputFrames = outputFrames - before.outputFrames
            return added
        }
    }

    /// What the sink does with track events.
    public struct EventHandling: Sendable {
        /// Write them among the frames (before the frame that decided them).
        public var write: Bool
        /// Stop at the first event of this kind: `reachedExitEvent` turns true.
        public var exitOn: TrackEvent.Kind?
        /// Run a command for each event (`--on-event`).
        public var hooks: EventHooks?
        /// Told of each event with its JSON Lines record, on the sink's thread (`--mqtt`); must return quickly.
        public var observers: [@Sendable (TrackEvent, _ record: String) -> Void]

        public init(
            write: Bool = false, exitOn: TrackEvent.Kind? = nil, hooks: EventHooks? = nil,
            observers: [@Sendable (TrackEvent, _ record: String) -> Void] = []
        ) {
            self.write = write
            self.exitOn = exitOn
            self.hooks = hooks
            self.observers = observers
        }
    }

    /// Replaced between sources by `redirect(to:)` (--output-dir); nil writes no results (redact).
    private var writer: ResultWriter?
    private let tracker: FaceTracker?
    /// Names the tracked faces (`--recognize` with a tracker).
    private let namer: (any TrackNaming)?
    /// Clusters the faces of the whole run (`--cluster`): the records are held back until `close`.
    private let clusterer: (any FaceClustering)?
    private var held: [Record] = []
    /// What the writer is given, in order.
    private enum Record {
        case result(FrameResult)
        case event(TrackEvent)
        case shot(BestShot)
    }
    private let events: EventHandling
    private var annotator: Annotator?
    /// Where faces cut out (`--crops`) are saved.
    private var cropSaver: Annotator?
    /// Save only each track's best crop, when the track ends (`--best-shot`), rather than every crop.
    private let bestShotsOnly: Bool
    /// Each open track's best crop so far, by track id: what `--best-shot` saves when the track ends.
    private var bestShots: [Int: (shot: BestShot, name: String, image: Frame)] = [:]
    private let marking: PreviewMarking
    /// The annotated or redacted video (or image), replaced between sources by
    /// `redirect(frames:)`; dropped after its first failure.
    private var frames: FrameOutput?
    /// Given each frame once tracked and written.
    private let consumers: [any FrameConsumer]
    private let report: @Sendable (String) -> Void
    private let progress: (@Sendable (String) -> Void)?
    /// What other threads read (`stopped`, `summary`...) and failures from any thread change.
    private struct State {
        var summary = Summary()
        var stopped = false
        var reachedExitEvent = false
        var frameOutputFailed = false
    }
    private let state: Mutex<State>

    /// `report` receives one line per failure (and per warning from the writer); `progress` sees every frame's source after it is
    /// written (or, shown only, output). With a `tracker`, faces get ids (and smoothing) before they are
    /// written, track events are handled as `events` says, and redaction hides tracked faces the
    /// detector missed; with a `namer` too, they are named per track, and a changed name is an event.
    /// With a `clusterer`, records are written when the run ends, their faces clustered.
    /// Previews are marked as `marking` says. Each frame then goes to the `consumers`.
    public init(
        writer: ResultWriter?, tracker: FaceTracker? = nil, namer: (any TrackNaming)? = nil, clusterer: (any FaceClustering)? = nil,
        events: EventHandling = EventHandling(),
        annotator: Annotator? = nil, cropSaver: Annotator? = nil, bestShotsOnly: Bool = false, marking: PreviewMarking = .outline,
        frames: FrameOutput? = nil, consumers: [any FrameConsumer] = [], minimumFaces: Int = 0,
        report: @escaping @Sendable (String) -> Void, progress: (@Sendable (String) -> Void)? = nil
    ) {
        precondition(!bestShotsOnly || tracker != nil, "best shots are per track")
        precondition(namer == nil || tracker != nil, "names are per track")
        self.bestShotsOnly = bestShotsOnly
        self.writer = writer
        self.tracker = tracker
        self.namer = namer
        self.clusterer = clusterer
        self.events = events
        self.annotator = annotator
        self.cropSaver = cropSaver
        self.marking = marking
        self.frames = frames
        self.consumers = consumers
        state = Mutex(State(summary: Summary(minimumFaces: minimumFaces)))
        self.report = report
        self.progress = progress
    }

    /// True once results can no longer be written, or the exit event came: stop submitting.
    public var stopped: Bool { state.withLock { $0.stopped } }
    /// True once an event of `events.exitOn`'s kind was written (or would have been).
    public var reachedExitEvent: Bool { state.withLock { $0.reachedExitEvent } }
    public var summary: Summary { state.withLock { $0.summary } }

    /// Handles one completion: a frame is tracked, its results written and its pictures saved, then
    /// it goes to the consumers.
    public func consume(_ completion: Completion) {
        if stopped { return }
        switch completion {
        case .failure(let error):
            fail(error)
        case .frame(var frame):
            // The boxes as detected: smoothing moves them, and a face is described from where it was found.
            let detected = frame.result.faces.map(\.box)
            var events = tracker?.track(&frame.result) ?? []
            if let namer { events = named(&frame, detected: detected, events: events, by: namer) }
            let result = frame.result
            do {
                // The frame that decided an exit event is still written: it holds the face that entered.
                try handle(events)
                if let warning = try write(.result(result)) { report(warning) }
            } catch {
                fail(.output(error))
                return
            }
            state.withLock { state in
                state.summary.frames += 1
                state.summary.faces += result.faces.count
                if result.faces.count < state.summary.minimumFaces {
                    if state.summary.firstFrameBelowMinimum == nil {
                        state.summary.firstFrameBelowMinimum = "\(result.source) frame \(result.frame)"
                    }
                    state.summary.framesBelowMinimum += 1
                }
            }
            if let crops = frame.crops {
                if bestShotsOnly { keepBest(crops, of: result) } else { save(crops, of: result.faces) }
            }
            let marks = PreviewMarks(faces: result.faces, predicted: predicted(at: result.frame, geometry: frame.geometry))
            if let preview = frame.preview { show(preview, at: result.time, marks: marks, annotationName: frame.annotationName) }
            for consumer in consumers {
                consumer.consume(TrackedFrame(frame: frame, marks: marks)) { [weak self] in self?.fail($0) }
            }
            progress?(result.source)
        case .shownOnly(let source, let index, let time, let geometry, let preview):
            show(preview, at: time, marks: PreviewMarks(faces: [], predicted: predicted(at: index, geometry: geometry)), annotationName: nil)
            progress?(source)
        }
    }

    /// `events`, followed by a `name` event for each track whose name `namer` changed, with the identities it
    /// gave their tracks once it named `frame`'s faces (`detected` their boxes as found). A face
    /// that could not be described is a failure of its frame, said; the frame's results and events go on.
    private func named(_ frame: inout DetectedFrame, detected: [PixelRect], events: [TrackEvent], by namer: any TrackNaming) -> [TrackEvent] {
        let outcome = namer.name(&frame.result, in: frame.image, geometry: frame.geometry, detected: detected)
        let result = frame.result
        if let failure = outcome.failure { fail(.detection(source: result.source, frame: result.frame, error: failure)) }
        return identified(events + outcome.renamed.compactMap { tracker?.event(.name, ofTrack: $0, frame: result.frame, time: result.time) })
    }

    /// `events` with the identities the namer gave their tracks (unchanged without a namer); it forgets the tracks that ended.
    private func identified(_ events: [TrackEvent]) -> [TrackEvent] {
        guard let namer else { return events }
        return events.map { event in
            var event = event
            event.identity = namer.identity(ofTrack: event.id, source: event.source)
            if event.kind == .leave, event.zone == nil { namer.end(track: event.id, source: event.source) }
            return event
        }
    }

    /// Redacting: where the tracked faces the detector missed at `frame` should be, in preview coordinates.
    private func predicted(at frame: Int, geometry: PreviewGeometry) -> [Rect] {
        guard case .redact = marking, let tracker else { return [] }
        return tracker.predictedBoxes(at: frame).map(geometry.bufferToPreview.apply)
    }

    /// Waits for the work the consumers queued: call once the last frame is in, before `close`.
    public func drain() {
        for consumer in consumers { consumer.drain() }
    }

    /// Frames from here on go to `output`: call between sources, with no frame in flight.
    public func redirect(frames output: FrameOutput?) {
        frames = output
        state.withLock { $0.frameOutputFailed = false }
    }

    /// True when the frame output failed (and was dropped) since it was given: stop sending it frames.
    public var frameOutputFailed: Bool { state.withLock { $0.frameOutputFailed } }

    /// Results from here on go to `writer`: call between sources, with no frame in flight (and no clusterer).
    public func redirect(to writer: ResultWriter) {
        precondition(clusterer == nil, "a clustered run has one writer")
        self.writer = writer
    }

    /// Ends the open tracks (their `leave` events), so that the next source's
    /// ids start afresh; call once the source's last frame is in.
    public func endSource() {
        guard !stopped, let tracker else { return }
        do {
            // Faces still in view when the source ends did not leave: these end no wait for --exit-on.
            try handle(identified(tracker.finish()), mayExit: false)
        } catch {
            fail(.output(error))
        }
    }

    /// Ends the open tracks, finishes the frame output, so that it plays, and ends the results (a
    /// COCO document's closing, its file's finished name); call once the last frame is in. A run
    /// that `stoppedEarly` keeps a COCO file under its partial name instead, saying so.
    public func close(stoppedEarly: Bool = false) {
        if let output = frames {
            frames = nil
            do {
                try output.finish()
            } catch {
                fail(error)
            }
        }
        endSource()
        saveRemainingBestShots()
        if let hooks = events.hooks { report(hooks.finish().description) }
        let outputFailed = state.withLock { $0.stopped && !$0.reachedExitEvent }
        guard let writer = writer, !outputFailed else { return }
        do {
            try writeHeld()
            if !stoppedEarly {
                try writer.finish()
            } else if let kept = try writer.keepUnfinished() {
                report("the results so far are in \(kept), which keeps that name since the run stopped early")
            }
        } catch {
            fail(.output(error))
        }
    }

    /// Writes `events` up to and including the first of the exit kind (and the zones that face
    /// entered with it), which stops the sink; a track that leaves has its best shot saved.
    private func handle(_ events: [TrackEvent], mayExit: Bool = true) throws(SystemError) {
        var exitedWith: Int?
        for event in events {
            // After the exit event, only the zones that same face entered with it.
            if let exitedWith, event.id != exitedWith || event.zone == nil { return }
            if self.events.write { try write(.event(event)) }
            let record = JSONLinesFormat().render(event)
            self.events.hooks?.run(event, record: record)
            for observer in self.events.observers { observer(event, record) }
            // A zone's events are the face's moves within the picture: the track goes on.
            guard event.zone == nil else { continue }
            if event.kind == .leave { try saveBestShot(of: event.id) }
            if mayExit, exitedWith == nil, event.kind == self.events.exitOn {
                state.withLock { state in
                    state.stopped = true
                    state.reachedExitEvent = true
                }
                exitedWith = event.id
            }
        }
    }

    /// Marks a rendered preview and saves it: as an annotated JPEG when it has a name, and to the frame output.
    private func show(_ rendered: Result<Frame, FaceCamError>, at time: Double, marks: PreviewMarks, annotationName: String?) {
        var preview: Frame
        do {
            preview = try rendered.get()
            try Annotator.mark(&preview, with: marks, as: marking)
        } catch {
            fail(error)
            return
        }
        if case .redact(let settings, _) = marking {
            let hidden = settings.hiddenPixels(marks.faces.map(\.preview) + marks.predicted, width: preview.width, height: preview.height)
            state.withLock { state in
                state.summary.masks += marks.faces.count + marks.predicted.count
                state.summary.hiddenPixels += hidden
                state.summary.redactedPixels += preview.width * preview.height
            }
        }
        if let annotationName, annotator != nil {
            do {
                try annotator?.save(preview, name: annotationName)
            } catch {
                fail(error)
            }
        }
        guard let output = frames else { return }
        do {
            try output.append(preview, time: time)
            state.withLock { $0.summary.outputFrames += 1 }
        } catch {
            // One line, not one per frame: the output is given up, the results go on.
            fail(error)
            frames = nil
            state.withLock { $0.frameOutputFailed = true }
        }
    }

    /// Saves each face's crop, named after its track id once tracking gave one.
    private func save(_ crops: FaceCrops, of faces: [Face]) {
        for (index, (face, image)) in zip(faces, crops.images).enumerated() {
            guard let image else { continue }
            do {
                try cropSaver?.save(image, name: crops.fileName(of: face, index: index))
            } catch {
                fail(error)
            }
        }
    }

    /// Keeps each tracked face's crop when its quality beats its track's best so far.
    private func keepBest(_ crops: FaceCrops, of result: FrameResult) {
        for (index, (face, image)) in zip(result.faces, crops.images).enumerated() {
            guard let image, let id = face.id, let quality = face.quality, quality > bestShots[id]?.shot.quality ?? -1 else { continue }
            let shot = BestShot(id: id, source: result.source, frame: result.frame, time: result.time, quality: quality, path: "")
            bestShots[id] = (shot, crops.fileName(of: face, index: index), image)
        }
    }

    /// Saves the best shots of the tracks still open once the sink stopped (`--exit-on` ends the
    /// run before their `leave`), unless writing failed.
    private func saveRemainingBestShots() {
        guard state.withLock({ !$0.stopped || $0.reachedExitEvent }) else { return }
        for id in bestShots.keys.sorted() {
            do {
                try saveBestShot(of: id)
            } catch {
                return fail(.output(error))
            }
        }
    }

    /// Saves the best crop of track `id`, if it had one, and writes its record.
    private func saveBestShot(of id: Int) throws(SystemError) {
        guard var best = bestShots.removeValue(forKey: id), cropSaver != nil else { return }
        do {
            best.shot.path = try cropSaver!.save(best.image, name: best.name)
        } catch {
            return fail(error)
        }
        try write(.shot(best.shot))
    }

    /// Writes `record`, or holds it until the run ends when faces are clustered across it; returns the
    /// writer's warning about a result, if any.
    @discardableResult
    private func write(_ record: Record) throws(SystemError) -> String? {
        if clusterer != nil {
            held.append(record)
            return nil
        }
        return try deliver(record)
    }

    /// Gives `record` to the writer; returns its warning about a result, if any.
    private func deliver(_ record: Record) throws(SystemError) -> String? {
        switch record {
        case .result(let result): return try writer?.write(result)
        case .event(let event): try writer?.write(event)
        case .shot(let shot): try writer?.write(shot)
        }
        return nil
    }

    /// Clusters the faces of the records held back and writes them all, in order; if clustering fails,
    /// they are written without clusters (and the failure said).
    private func writeHeld() throws(SystemError) {
        guard let clusterer, !held.isEmpty else { return }
        var results = held.compactMap { if case .result(let result) = $0 { result } else { nil } }
        do {
            try clusterer.cluster(&results)
        } catch {
            fail(error)
        }
        var clustered = results.makeIterator()
        let records = held
        held = []
        for record in records {
            let written = if case .result = record { Record.result(clustered.next()!) } else { record }
            if let warning = try deliver(written) { report(warning) }
        }
    }

    private func fail(_ error: FaceCamError) {
        report(error.description)
        state.withLock { state in
            state.summary.failures += 1
            if case .zone = error { state.summary.polygonsOutside += 1 }
            if case .output = error { state.stopped = true }
        }
    }
}
