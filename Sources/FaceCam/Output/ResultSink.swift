import Foundation

/// Where completions go, in order: results to the writer, previews to
/// annotated JPEGs and an annotated video, failures to `report`.
/// Frames come from one thread at a time (the pipeline's delivery queue), failures from any; `stopped`
/// and `summary` may be read from any thread.
public final class ResultSink: @unchecked Sendable {
    public struct Summary: Sendable {
        public var frames = 0
        public var faces = 0
        public var failures = 0
        /// Frames with fewer faces than the sink's minimum.
        public var framesBelowMinimum = 0
    }

    /// What the sink does with track events.
    public struct EventHandling: Sendable {
        /// Write them among the frames (before the frame that decided them).
        public var write: Bool
        /// Stop at the first event of this kind: `reachedExitEvent` turns true.
        public var exitOn: TrackEvent.Kind?

        public init(write: Bool = false, exitOn: TrackEvent.Kind? = nil) {
            self.write = write
            self.exitOn = exitOn
        }
    }

    /// Replaced between sources by `redirect(to:)` (--output-dir).
    private var writer: ResultWriter?
    private let tracker: FaceTracker?
    private let events: EventHandling
    private var annotator: Annotator?
    /// The annotated video, opened before the first frame; dropped after its first failure.
    private var video: VideoWriter?
    private let minimumFaces: Int
    private let report: @Sendable (String) -> Void
    private let progress: (@Sendable (FrameResult) -> Void)?
    private let lock = NSLock()
    private var state = (summary: Summary(), stopped: false, reachedExitEvent: false)

    /// `report` receives one line per failure; `progress` sees every result after it is written.
    /// With a `tracker`, faces get ids (and smoothing) before they are written, and track events are
    /// handled as `events` says. A `writer` nil must be given by `redirect(to:)` before the first frame.
    public init(
        writer: ResultWriter?, tracker: FaceTracker? = nil, events: EventHandling = EventHandling(),
        annotator: Annotator? = nil, video: VideoWriter? = nil, minimumFaces: Int = 0,
        report: @escaping @Sendable (String) -> Void, progress: (@Sendable (FrameResult) -> Void)? = nil
    ) {
        self.writer = writer
        self.tracker = tracker
        self.events = events
        self.annotator = annotator
        self.video = video
        self.minimumFaces = minimumFaces
        self.report = report
        self.progress = progress
    }

    /// True once results can no longer be written, or the exit event came: stop submitting.
    public var stopped: Bool { lock.withLock { state.stopped } }
    /// True once an event of `events.exitOn`'s kind was written (or would have been).
    public var reachedExitEvent: Bool { lock.withLock { state.reachedExitEvent } }
    public var summary: Summary { lock.withLock { state.summary } }

    public func consume(_ completion: Completion) {
        if stopped { return }
        switch completion {
        case .failure(let error):
            fail(error)
        case .frame(var result, let preview, let annotationName):
            let events = tracker?.track(&result) ?? []
            do {
                // The frame that decided an exit event is still written: it holds the face that entered.
                try handle(events)
                try currentWriter().write(result)
            } catch {
                fail(.output(error))
                return
            }
            lock.withLock {
                state.summary.frames += 1
                state.summary.faces += result.faces.count
                if result.faces.count < minimumFaces { state.summary.framesBelowMinimum += 1 }
            }
            switch preview {
            case .success(let frame): save(frame, annotationName: annotationName)
            case .failure(let error): fail(error)
            case nil: break
            }
            progress?(result)
        }
    }

    /// Results from here on go to `writer`: call between sources, with no frame in flight.
    public func redirect(to writer: ResultWriter) {
        lock.withLock { self.writer = writer }
    }

    /// Ends the open tracks (their `leave` events), so that the next source's
    /// ids start afresh; call once the source's last frame is in.
    public func endSource() {
        guard !stopped, let tracker else { return }
        do {
            // Faces still in view when the source ends did not leave: these end no wait for --exit-on.
            try handle(tracker.finish(), mayExit: false)
        } catch {
            fail(.output(error))
        }
    }

    /// Ends the open tracks and finishes the annotated video, so that it
    /// plays; call once the last frame is in.
    public func close() {
        video = nil
        endSource()
    }

    private func currentWriter() -> ResultWriter {
        guard let writer = lock.withLock({ writer }) else { preconditionFailure("a result came before its writer") }
        return writer
    }

    /// Writes `events` up to and including the first of the exit kind, which stops the sink.
    private func handle(_ events: [TrackEvent], mayExit: Bool = true) throws(SystemError) {
        for event in events {
            if self.events.write { try currentWriter().write(event) }
            if mayExit, event.kind == self.events.exitOn {
                lock.withLock {
                    state.stopped = true
                    state.reachedExitEvent = true
                }
                return
            }
        }
    }

    private func save(_ preview: Frame, annotationName: String?) {
        if let annotationName, annotator != nil {
            do {
                try annotator?.save(preview, name: annotationName)
            } catch {
                fail(error)
            }
        }
        do {
            try video?.append(preview)
        } catch {
            // One line, not one per frame: the video is given up, the results go on.
            fail(error)
            video = nil
        }
    }

    private func fail(_ error: FaceCamError) {
        report(error.description)
        lock.withLock {
            state.summary.failures += 1
            if case .output = error { state.stopped = true }
        }
    }
}
