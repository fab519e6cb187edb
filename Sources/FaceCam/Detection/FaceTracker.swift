/// How faces are followed from frame to frame.
public struct TrackerSettings: Hashable, Sendable {
    /// Frames a face may go undetected before its track ends.
    public var grace: Int
    /// Exponential smoothing of boxes over time, 0 (none) up to below 1 (heavy); nil is off.
    public var smoothing: Double?

    public init(grace: Int = 5, smoothing: Double? = nil) {
        self.grace = grace
        self.smoothing = smoothing
    }
}

/// Gives each face an `id` that stays the same while the face stays in view.
///
/// Frame by frame, faces are matched to the tracks by overlap with where
/// each track's face is predicted to be (its last box moved on at its last
/// speed): the pairs with the highest intersection over union (at least
/// 0.3) first, one face per track. A face left over starts a new track with
/// the next id (1, 2, ... per source). A track left over waits: it ends once
/// it has gone unmatched for more than `grace` frames in a row, so one
/// missed detection does not start a new id. A new source starts afresh.
public final class FaceTracker {
    private struct Track {
        var id: Int
        /// The last detected box.
        var box: PixelRect
        /// How far the box moved per frame lately, to predict where a face went while missed.
        var velocity: (x: Double, y: Double) = (0, 0)
        var smoothedBox: Rect
        var smoothedPreview: Rect
        var missed: Int

        /// The last box moved on by the velocity for each frame since it was seen.
        var predicted: PixelRect {
            let frames = Double(missed + 1)
            return PixelRect(
                x: box.x + Int((velocity.x * frames).rounded()), y: box.y + Int((velocity.y * frames).rounded()),
                width: box.width, height: box.height)
        }
    }

    public let settings: TrackerSettings
    private var tracks: [Track] = []
    private var nextID = 1
    private var source: String?

    public init(settings: TrackerSettings = TrackerSettings()) {
        self.settings = settings
    }

    /// Sets every face's id (and, with smoothing, its smoothed box and preview rect).
    public func track(_ result: inout FrameResult) {
        if result.source != source {
            source = result.source
            tracks = []
            nextID = 1
        }
        var pairs: [(overlap: Double, track: Int, face: Int)] = []
        for (t, track) in tracks.enumerated() {
            let predicted = track.predicted
            for (f, face) in result.faces.enumerated() {
                let overlap = predicted.overlap(with: face.box)
                if overlap >= 0.3 { pairs.append((overlap, t, f)) }
            }
        }
        pairs.sort { ($0.overlap, $1.track, $1.face) > ($1.overlap, $0.track, $0.face) }
        var trackTaken = Set<Int>(), faceTaken = Set<Int>()
        for pair in pairs where !trackTaken.contains(pair.track) && !faceTaken.contains(pair.face) {
            trackTaken.insert(pair.track)
            faceTaken.insert(pair.face)
            update(&tracks[pair.track], with: &result.faces[pair.face])
        }
        for t in tracks.indices where !trackTaken.contains(t) { tracks[t].missed += 1 }
        tracks.removeAll { $0.missed > settings.grace }
        for f in result.faces.indices where !faceTaken.contains(f) {
            let face = result.faces[f]
            result.faces[f].id = nextID
            tracks.append(Track(id: nextID, box: face.box, smoothedBox: face.box.rect, smoothedPreview: face.preview, missed: 0))
            nextID += 1
        }
    }

    private func update(_ track: inout Track, with face: inout Face) {
        let frames = Double(track.missed + 1)
        track.velocity = (Double(face.box.x - track.box.x) / frames, Double(face.box.y - track.box.y) / frames)
        track.box = face.box
        track.missed = 0
        face.id = track.id
        guard let keep = settings.smoothing else { return }
        // The preview map is affine and keeps axes parallel, so smoothing both is consistent.
        track.smoothedBox = blend(track.smoothedBox, face.box.rect, keep: keep)
        track.smoothedPreview = blend(track.smoothedPreview, face.preview, keep: keep)
        let box = track.smoothedBox
        face.box = PixelRect(
            x: Int(box.x.rounded()), y: Int(box.y.rounded()), width: Int(box.width.rounded()), height: Int(box.height.rounded()))
        face.preview = track.smoothedPreview
    }

    private func blend(_ old: Rect, _ new: Rect, keep: Double) -> Rect {
        Rect(
            x: keep * old.x + (1 - keep) * new.x, y: keep * old.y + (1 - keep) * new.y,
            width: keep * old.width + (1 - keep) * new.width, height: keep * old.height + (1 - keep) * new.height)
    }
}
