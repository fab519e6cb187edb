import Foundation
import Synchronization

/// Where completions go, in order: each frame through the tracking stage, then to its outputs
/// (results, events and their actions, crops, marked previews) and its consumers; failures to
/// `report`, counted. Frames come from one thread at a time (the pipeline's delivery queue), failures from any; `stopped`
/// and `summary` may be read from any thread (they live in one `Mutex`). The outputs are the delivery
/// thread's alone: `redirect` replaces them between sources, with no frame in flight.
/// @unchecked Sendable: its outputs' OS handles (open files, ffmpeg's socket) are the delivering thread's alone.
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

    /// What the sink says, a line each.
    public enum Message: Sendable, CustomStringConvertible {
        /// Something failed (and is counted).
        case failure(FaceCamError)
        /// A run that stopped early kept its unfinished results under this (partial) name.
        case keptUnfinished(String)
        /// A dataset item the writer had to rename.
        case renamed(ItemRenamed)
        /// How the event commands went, once they are all done.
        case hooks(EventHooks.Summary)

        public var description: String {
            switch self {
            case .failure(let error): error.description
            case .keptUnfinished(let path): "the results so far are in \(path), which keeps that name since the run stopped early"
            case .renamed(let renamed): renamed.description
            case .hooks(let summary): "event commands: \(summary)"
            }
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

    /// The results, events and best shots written; nil writes none (redact).
    private let records: RecordOutput?
    private let tracking: FrameTracking?
    private let events: EventHandling
    private let crops: CropOutput?
    private let previews: PreviewOutput?
    /// Given each frame once tracked and written.
    private let consumers: [any FrameConsumer]
    private let report: @Sendable (Message) -> Void
    private let progress: (@Sendable (String) -> Void)?
    /// What other threads read (`stopped`, `summary`...) and failures from any thread change.
    private struct State {
        var summary = Summary()
        var stopped = false
        var reachedExitEvent = false
        var frameOutputFailed = false
    }
    private let state: Mutex<State>

    /// A frame is tracked (`tracking`: ids, smoothing, names, events handled as `events` says), its
    /// result written to `records`, its faces cut out saved by `crops`, its rendered preview marked and
    /// saved by `previews` (redaction also hides the tracked faces the detector missed), then it goes
    /// to the `consumers`, in that order. `report` receives each failure (and each warning from
    /// the writer); `progress` sees every frame's source after it is written (or, shown only, output).
    public init(
        records: RecordOutput?, tracking: FrameTracking? = nil, events: EventHandling = EventHandling(), crops: CropOutput? = nil,
        previews: PreviewOutput? = nil, consumers: [any FrameConsumer] = [], minimumFaces: Int = 0,
        report: @escaping @Sendable (Message) -> Void, progress: (@Sendable (String) -> Void)? = nil
    ) {
        precondition(crops?.bestShotsOnly != true || tracking != nil, "best shots are per track")
        self.records = records
        self.tracking = tracking
        self.events = events
        self.crops = crops
        self.previews = previews
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
            var events: [TrackEvent] = []
            if let tracking {
                let tracked = tracking.track(&frame)
                if let failure = tracked.failure { fail(failure) }
                events = tracked.events
            }
            let result = frame.result
            do {
                // The frame that decided an exit event is still written: it holds the face that entered.
                try handle(events)
                if let renamed = try records?.write(.result(result)) { report(.renamed(renamed)) }
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
            if let cut = frame.crops { crops?.take(cut, of: result, fail: fail) }
            let marks = PreviewMarks(faces: result.faces, predicted: predicted(at: result.frame, geometry: frame.geometry))
            if let preview = frame.preview { show(preview, at: result.time, marks: marks, annotationName: frame.annotationName) }
            for consumer in consumers {
                // A failure the sink hears of once it stopped is not said: the run is ending.
                consumer.consume(TrackedFrame(frame: frame, marks: marks)) { [weak self] in self?.consume(.failure($0)) }
            }
            progress?(result.source)
        case .shownOnly(let source, let index, let time, let geometry, let preview, let planned):
            let marks = planned.map { PreviewMarks(faces: [], planned: $0) }
                ?? PreviewMarks(faces: [], predicted: predicted(at: index, geometry: geometry))
            show(preview, at: time, marks: marks, annotationName: nil)
            progress?(source)
        }
    }

    /// Redacting: where the tracked faces the detector missed at `frame` should be, in preview coordinates.
    private func predicted(at frame: Int, geometry: PreviewGeometry) -> [FaceTracker.Prediction] {
        guard previews?.hidesPredicted == true, let tracking else { return [] }
        return tracking.predicted(at: frame, geometry: geometry)
    }

    /// Waits for the work the consumers queued: call once the last frame is in (`close` does too, first).
    public func drain() {
        for consumer in consumers { consumer.drain() }
    }

    /// Frames from here on go to `output`: call between sources, with no frame in flight.
    public func redirect(frames output: FrameOutput?) {
        guard let previews else { preconditionFailure("a run that shows nothing has no frame output") }
        previews.redirect(frames: output)
        state.withLock { $0.frameOutputFailed = false }
    }

    /// True when the frame output failed (and was dropped) since it was given: stop sending it frames.
    public var frameOutputFailed: Bool { state.withLock { $0.frameOutputFailed } }

    /// Results from here on go to `writer`: call between sources, with no frame in flight (and no clusterer).
    public func redirect(to writer: ResultWriter) {
        guard let records else { preconditionFailure("a run that writes no results has none to redirect") }
        records.redirect(to: writer)
    }

    /// Marks and saves the previews held back, then ends the open tracks (their `leave` events), so that the next
    /// source's ids start afresh; call once the source's last frame is in.
    public func endSource() {
        releaseHeldPreviews()
        guard !stopped, let tracking else { return }
        do {
            // Faces still in view when the source ends did not leave: these end no wait for --exit-on.
            try handle(tracking.finish(), mayExit: false)
        } catch {
            fail(.output(error))
        }
    }

    /// Waits for the consumers, marks and saves the previews held back, finishes the frame output, so that it plays, ends
    /// the open tracks and ends the results (a COCO document's closing, its file's finished name); call once the last
    /// frame is in. A run that `stoppedEarly` keeps a COCO file under its partial name instead, saying so. A run
    /// `stopped` (a signal, live's end) gives its --on-event commands no time to start, and a short grace to end.
    public func close(stoppedEarly: Bool = false, stopped: Bool = false) {
        drain()
        releaseHeldPreviews()
        do {
            try previews?.finish()
        } catch {
            fail(error)
        }
        endSource()
        saveRemainingBestShots()
        if let hooks = events.hooks { report(.hooks(hooks.finish(stopped: stopped))) }
        let outputFailed = state.withLock { $0.stopped && !$0.reachedExitEvent }
        guard let records, !outputFailed else { return }
        do {
            if let kept = try records.finish(stoppedEarly: stoppedEarly, report: { report(.renamed($0)) }, fail: fail) {
                report(.keptUnfinished(kept))
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
            if self.events.write { try records?.write(.event(event)) }
            let record = JSONLinesFormat().render(event)
            self.events.hooks?.run(event, record: record)
            for observer in self.events.observers { observer(event, record) }
            // A zone's events are the face's moves within the picture: the track goes on.
            guard event.zone == nil else { continue }
            if event.kind == .leave, let shot = crops?.bestShot(ofTrack: event.id, fail: fail) { try records?.write(.shot(shot)) }
            if mayExit, exitedWith == nil, event.kind == self.events.exitOn {
                state.withLock { state in
                    state.stopped = true
                    state.reachedExitEvent = true
                }
                exitedWith = event.id
            }
        }
    }

    /// Marks a rendered preview and saves it (or the previews' lookahead holds it back), counting what was hidden and
    /// what reached the frame output.
    private func show(_ rendered: Result<Frame, FaceCamError>, at time: Double, marks: PreviewMarks, annotationName: String?) {
        guard let previews else { return }
        let openTracks = tracking?.openTracks ?? []
        count(previews.show(rendered, at: time, marks: marks, annotationName: annotationName, openTracks: openTracks, fail: fail))
    }

    private func releaseHeldPreviews() {
        if let previews { count(previews.release(fail: fail)) }
    }

    private func count(_ shown: PreviewOutput.Shown) {
        state.withLock { state in
            state.summary.masks += shown.masks
            state.summary.hiddenPixels += shown.hiddenPixels
            state.summary.redactedPixels += shown.redactedPixels
            state.summary.outputFrames += shown.written
            if shown.outputFailed { state.frameOutputFailed = true }
        }
    }

    /// Saves the best shots of the tracks still open once the sink stopped (`--exit-on` ends the
    /// run before their `leave`), unless writing failed.
    private func saveRemainingBestShots() {
        guard let crops, state.withLock({ !$0.stopped || $0.reachedExitEvent }) else { return }
        for id in crops.tracksWithBestShots {
            guard let shot = crops.bestShot(ofTrack: id, fail: fail) else { continue }
            do {
                try records?.write(.shot(shot))
            } catch {
                return fail(.output(error))
            }
        }
    }

    /// Counts failures the caller reported before the run began (inputs missing at its start), for the exit status.
    public func countReported(failures: Int) {
        state.withLock { $0.summary.failures += failures }
    }

    private func fail(_ error: FaceCamError) {
        report(.failure(error))
        state.withLock { state in
            state.summary.failures += 1
            if case .zone = error { state.summary.polygonsOutside += 1 }
            if case .output = error { state.stopped = true }
        }
    }
}
