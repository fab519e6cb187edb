import Foundation

/// How faces are followed from frame to frame.
public struct TrackerSettings: Hashable, Sendable {
    /// Source frames a face may go undetected before its track ends.
    public var grace: Int
    /// Exponential smoothing of boxes over time, 0 (none) up to below 1 (heavy); nil is off.
    public var smoothing: Double?

    public init(grace: Int = 5, smoothing: Double? = nil) {
        self.grace = grace
        self.smoothing = smoothing
    }
}

/// A track starting or ending, or its name changing.
public struct TrackEvent: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case enter
        case leave
        /// The track was taken for someone else, or no longer for anyone (`--recognize`), after its enter.
        case name
    }

    public var kind: Kind
    public var id: Int
    public var source: String
    /// The frame (and its time) at which the event was decided: for `enter`
    /// the face's first frame; for `leave` the first processed frame past the
    /// grace, or the source's last frame when it ended with the face in view;
    /// for `name` the frame whose description changed the name.
    public var frame: Int
    public var time: Double
    /// The first and last frames (and times) the face was detected in.
    public var firstFrame: Int
    public var firstTime: Double
    public var lastFrame: Int
    public var lastTime: Double
    /// The face's box in the preview and its score: as first detected for `enter`, as last detected for `leave` and `name`.
    public var preview: Rect
    public var score: Double?
    /// For the events of a `--zone`: the face's centre came into it or went out of it (or its track ended there).
    public var zone: String?
    /// Who the track was taken for (`--recognize`) when the event was decided; nil without recognition.
    public var identity: FaceIdentity?
}

/// Gives each face an `id` that stays the same while the face stays in view.
///
/// Time is the source's: a track predicts where its face is after the
/// number of source frames that elapsed since it was last seen (the frame
/// index of a file, the capture sequence of a camera), not the number of
/// frames processed, so `--every N` and frames dropped by a busy detector
/// stretch the prediction instead of breaking it.
///
/// Per processed frame:
/// 1. Each track predicts its face's centre, moved on at the track's speed
///    (source frames elapsed x pixels per source frame).
/// 2. A face may pair with a track when its centre is within the track's
///    gate and its size within a ratio of the track's. Distances are
///    measured in face sizes, so a gate is the same for near and far faces.
///    The gate widens with the elapsed frames: by `maximumSpeed` sizes per
///    frame for a track seen once (whose speed is unknown), by
///    `speedUncertainty` per frame for one whose speed is measured, up to
///    `widestGateAfter` frames.
/// 3. Among the allowed pairs, the assignment with the least total cost
///    (centre distance over the gate, plus the log of the size ratio) is
///    taken: optimal, not greedy, so two faces passing each other do not
///    swap ids because one of them was matched first.
/// 4. A face left over starts a track with the next id (1, 2, ... per source).
///    A track left over ends once more than `grace` source frames have
///    passed since its face was seen.
public final class FaceTracker {
    /// How fast a face seen once may move, in face sizes per source frame
    /// (20 pixels a frame for an 80-pixel face).
    static let maximumSpeed = 0.25
    /// How far a face with a measured speed may stray from its prediction,
    /// in face sizes: a base plus so much per source frame elapsed.
    static let baseGate = 0.35
    static let speedUncertainty = 0.1
    /// The largest size ratio between a track's face and a new detection,
    /// plus so much per source frame elapsed (zooming).
    static let sizeRatio = 1.4
    static let sizeRatioPerFrame = 0.03
    /// Gates stop widening after this many source frames (half a second at 30 frames/s): after a
    /// longer gap, a face anywhere in the picture is not taken for the one last seen.
    static let widestGateAfter = 15.0

    private struct Track {
        var id: Int
        /// The last detected box.
        var box: Rect
        /// Centre movement in pixels per source frame; nil until seen twice.
        var velocity: (x: Double, y: Double)?
        var firstFrame: Int
        var firstTime: Double
        var lastFrame: Int
        var lastTime: Double
        var smoothedBox: Rect
        var smoothedPreview: Rect
        /// The last face as written: its box in the preview and its score.
        var preview: Rect
        var score: Double?
        /// The zones its centre was in at its last detection.
        var zones: [String] = []

        var size: Double { max(box.width, box.height) }

        /// Source frames from the last detection to `frame`; frames out of
        /// order (a camera's counter wrapping) count as one.
        func elapsed(until frame: Int) -> Double {
            Double(max(frame - lastFrame, 1))
        }

        /// Where the face's centre should be at `frame`.
        func predictedCentre(at frame: Int) -> (x: Double, y: Double) {
            let elapsed = elapsed(until: frame)
            let v = velocity ?? (0, 0)
            return (box.x + box.width / 2 + v.x * elapsed, box.y + box.height / 2 + v.y * elapsed)
        }

        /// The source frames the gates widen by at `frame`.
        func widening(until frame: Int) -> Double {
            min(elapsed(until: frame), FaceTracker.widestGateAfter)
        }

        /// How far from the prediction a face may be at `frame`, in pixels.
        func gate(at frame: Int) -> Double {
            let elapsed = widening(until: frame)
            let perFrame = velocity == nil ? FaceTracker.maximumSpeed : FaceTracker.speedUncertainty
            return size * (FaceTracker.baseGate + perFrame * elapsed)
        }
    }

    /// May change between sources (redaction's first pass follows faces over the frames it does not search).
    public var settings: TrackerSettings
    private var tracks: [Track] = []
    private var nextID = 1
    private var source: String?
    /// The last frame processed, to end the tracks still open when the source ends.
    private var lastFrame = (index: 0, time: 0.0)

    public init(settings: TrackerSettings = TrackerSettings()) {
        self.settings = settings
    }

    /// Sets every face's id (and, with smoothing, its smoothed box and preview
    /// rect). Returns the events, in order: the previous source's tracks
    /// leaving when this result starts a new source, then this frame's
    /// leaves and enters.
    @discardableResult
    public func track(_ result: inout FrameResult) -> [TrackEvent] {
        var events: [TrackEvent] = []
        if result.source != source {
            events += finish()
            source = result.source
        }
        let frame = result.frame
        let costs: [[Double?]] = tracks.map { track in
            let centre = track.predictedCentre(at: frame)
            let gate = track.gate(at: frame)
            let ratioLimit = Self.sizeRatio + Self.sizeRatioPerFrame * track.widening(until: frame)
            return result.faces.map { face in
                let box = face.box.rect
                let distance = hypot(box.x + box.width / 2 - centre.x, box.y + box.height / 2 - centre.y)
                let ratio = max(box.width, box.height) / track.size
                guard distance <= gate, max(ratio, 1 / ratio) <= ratioLimit else { return nil }
                return distance / gate + abs(log(ratio))
            }
        }
        let assignment = optimalAssignment(costs)
        var matchedFaces = Set<Int>()
        for (t, face) in assignment.enumerated() {
            guard let face else { continue }
            matchedFaces.insert(face)
            update(&tracks[t], with: &result.faces[face], frame: frame, time: result.time)
            let zones = result.faces[face].zones ?? []
            for zone in tracks[t].zones where !zones.contains(zone) {
                events.append(event(.leave, tracks[t], frame: frame, time: result.time, zone: zone))
            }
            for zone in zones where !tracks[t].zones.contains(zone) {
                events.append(event(.enter, tracks[t], frame: frame, time: result.time, zone: zone))
            }
            tracks[t].zones = zones
        }
        tracks.removeAll { track in
            guard frame - track.lastFrame > settings.grace else { return false }
            events += leaving(track, frame: frame, time: result.time)
            return true
        }
        for f in result.faces.indices where !matchedFaces.contains(f) {
            let face = result.faces[f]
            result.faces[f].id = nextID
            let track = Track(
                id: nextID, box: face.box.rect, firstFrame: frame, firstTime: result.time, lastFrame: frame,
                lastTime: result.time, smoothedBox: face.box.rect, smoothedPreview: face.preview, preview: face.preview,
                score: face.score, zones: face.zones ?? [])
            tracks.append(track)
            events.append(event(.enter, track, frame: frame, time: result.time))
            events += track.zones.map { event(.enter, track, frame: frame, time: result.time, zone: $0) }
            nextID += 1
        }
        lastFrame = (frame, result.time)
        return events
    }

    /// Where the face of an open track that was not detected at a frame should be.
    public struct Prediction: Hashable, Sendable {
        /// The track's id: its face has it again if it is found again.
        public var id: Int
        /// Its last detected box moved on at its speed, in buffer coordinates.
        public var box: Rect
        /// Detected at one frame alone so far: a face, or a detector's one-off mistake.
        public var seenOnce: Bool
    }

    /// The ids of the tracks still open: a face found again would have one of these.
    public var openTracks: Set<Int> { Set(tracks.map(\.id)) }

    /// Where the faces of the open tracks that were not detected at `frame` should be, for the tracks
    /// still within the grace. Call after `track` for that frame (the faces it missed), or for a frame
    /// that was not detected at all (--every), for which it changes nothing.
    public func predictions(at frame: Int) -> [Prediction] {
        tracks.compactMap { track in
            guard track.lastFrame != frame, frame - track.lastFrame <= settings.grace else { return nil }
            let centre = track.predictedCentre(at: frame)
            let box = Rect(
                x: centre.x - track.box.width / 2, y: centre.y - track.box.height / 2, width: track.box.width,
                height: track.box.height)
            return Prediction(id: track.id, box: box, seenOnce: track.firstFrame == track.lastFrame)
        }
    }

    /// Ends every open track (the source ended): their `leave` events, at the last frame processed.
    public func finish() -> [TrackEvent] {
        defer {
            tracks = []
            nextID = 1
        }
        return tracks.flatMap { leaving($0, frame: lastFrame.index, time: lastFrame.time) }
    }

    /// Open track `id`'s `kind` event at `frame` (a `name` event, decided after `track`); nil for no such track.
    public func event(_ kind: TrackEvent.Kind, ofTrack id: Int, frame: Int, time: Double) -> TrackEvent? {
        tracks.first { $0.id == id }.map { event(kind, $0, frame: frame, time: time) }
    }

    /// A track's end: it leaves its zones, then it leaves.
    private func leaving(_ track: Track, frame: Int, time: Double) -> [TrackEvent] {
        track.zones.map { event(.leave, track, frame: frame, time: time, zone: $0) } + [event(.leave, track, frame: frame, time: time)]
    }

    private func event(_ kind: TrackEvent.Kind, _ track: Track, frame: Int, time: Double, zone: String? = nil) -> TrackEvent {
        TrackEvent(
            kind: kind, id: track.id, source: source ?? "", frame: frame, time: time, firstFrame: track.firstFrame,
            firstTime: track.firstTime, lastFrame: track.lastFrame, lastTime: track.lastTime, preview: track.preview,
            score: track.score, zone: zone)
    }

    private func update(_ track: inout Track, with face: inout Face, frame: Int, time: Double) {
        let box = face.box.rect
        let elapsed = track.elapsed(until: frame)
        let measured = (
            x: (box.x + box.width / 2 - track.box.x - track.box.width / 2) / elapsed,
            y: (box.y + box.height / 2 - track.box.y - track.box.height / 2) / elapsed)
        // Half the old speed and half the new: detections jitter by a few pixels.
        track.velocity = track.velocity.map { (($0.x + measured.x) / 2, ($0.y + measured.y) / 2) } ?? measured
        track.box = box
        track.lastFrame = frame
        track.lastTime = time
        face.id = track.id
        defer {
            track.preview = face.preview
            track.score = face.score
        }
        guard let keep = settings.smoothing else { return }
        // The preview map is affine and keeps axes parallel, so smoothing both is consistent.
        track.smoothedBox = blend(track.smoothedBox, box, keep: keep)
        track.smoothedPreview = blend(track.smoothedPreview, face.preview, keep: keep)
        let smoothed = track.smoothedBox
        face.box = PixelRect(
            x: Int(smoothed.x.rounded()), y: Int(smoothed.y.rounded()), width: Int(smoothed.width.rounded()),
            height: Int(smoothed.height.rounded()))
        face.preview = track.smoothedPreview
    }

    private func blend(_ old: Rect, _ new: Rect, keep: Double) -> Rect {
        Rect(
            x: keep * old.x + (1 - keep) * new.x, y: keep * old.y + (1 - keep) * new.y,
            width: keep * old.width + (1 - keep) * new.width, height: keep * old.height + (1 - keep) * new.height)
    }
}
