/// The tracking stage, after detection: gives a frame's faces their track ids (and smoothing), names
/// the tracks when a namer is given (`--recognize` in video and live) and says which tracks began,
/// ended and were renamed. Frames come in order, from one thread at a time.
public final class FrameTracking {
    private let tracker: FaceTracker
    private let namer: (any TrackNaming)?

    public init(tracker: FaceTracker, namer: (any TrackNaming)? = nil) {
        self.tracker = tracker
        self.namer = namer
    }

    /// Tracks `frame`'s faces, then names them; returns the frame's events (a `name` event follows
    /// them for each track whose name changed) with their tracks' identities, and the failure to
    /// describe a face, if one could not be (the frame goes on, that face keeping its track's name).
    func track(_ frame: inout DetectedFrame) -> (events: [TrackEvent], failure: FaceCamError?) {
        // The boxes as detected: smoothing moves them, and a face is described from where it was found.
        let detected = frame.result.faces.map(\.box)
        let events = tracker.track(&frame.result)
        guard let namer else { return (events, nil) }
        let outcome = namer.name(&frame.result, in: frame.image, geometry: frame.geometry, detected: detected)
        let result = frame.result
        let renamed = outcome.renamed.compactMap { tracker.event(.name, ofTrack: $0, frame: result.frame, time: result.time) }
        return (identified(events + renamed), outcome.failure.map { .detection(source: result.source, frame: result.frame, error: $0) })
    }

    /// Ends the open tracks, so that the next source's ids start afresh: their `leave` events.
    func finish() -> [TrackEvent] {
        identified(tracker.finish())
    }

    /// Where the tracked faces the detector missed at `frame` should be, in preview coordinates.
    func predicted(at frame: Int, geometry: PreviewGeometry) -> [FaceTracker.Prediction] {
        tracker.predictions(at: frame).map { prediction in
            var prediction = prediction
            prediction.box = geometry.bufferToPreview.apply(prediction.box)
            return prediction
        }
    }

    /// The ids of the tracks still open.
    var openTracks: Set<Int> { tracker.openTracks }

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
}
