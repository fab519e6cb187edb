import FaceCam

/// What is known of one track's identity: the descriptions of its faces so far and the name they give.
/// A track is described at its first face, then at most `limit - 1` more times, each `spacing` source
/// frames or more after the one before, so that the descriptions see the face at different moments; it
/// is named after the mean of its (unit-length) descriptions, which strays less than any one of them.
struct TrackIdentity {
    static let limit = 3
    static let spacing = 10

    private(set) var descriptions: [FaceDescriptor] = []
    private(set) var lastDescribed: Int?
    private(set) var identity: FaceIdentity?
    /// Which of the namer's enrolled sets `identity` was found among.
    var enrolledGeneration = 0

    /// Whether the track's face at `frame` should be described (a camera's counter that wrapped counts as time passed).
    func wantsDescription(at frame: Int) -> Bool {
        guard descriptions.count < Self.limit else { return false }
        guard let lastDescribed else { return true }
        return frame - lastDescribed >= Self.spacing || frame < lastDescribed
    }

    /// Brings the track up to date at `frame`: `descriptor` added when given, and named among `enrolled` after it, or when
    /// the people enrolled changed since it was named (`enrolledChanged`). True when that changed the name given before,
    /// a name event: a first name is none, and neither is a name changed and changed back within the frame.
    mutating func update(described descriptor: FaceDescriptor?, at frame: Int, enrolled: EnrolledFaces?, enrolledChanged: Bool = false) -> Bool {
        let before = identity
        if let descriptor {
            descriptions.append(descriptor.unitLength)
            lastDescribed = frame
        }
        if let enrolled, !descriptions.isEmpty, descriptor != nil || enrolledChanged {
            identity = enrolled.identify(.mean(descriptions))
        }
        return before != nil && before?.name != identity?.name
    }
}

/// Names tracked faces per track (`--recognize` in `video` and `live`): each track is described a few
/// times (`TrackIdentity`), not at every frame, and every face of it carries the track's name and
/// distance (without `enrolled` people, tracks are described only: `--cluster`). With
/// `keepsDescriptors`, a face described at its frame carries its own descriptor. With a `follower` (live), people
/// enrolled, renamed or forgotten while it runs are taken at the next frame after the follower sees the change: each
/// track is named again among them when its face is next seen. With a `board` (live's people panel), every face of a
/// described track is reported there, with its description and, when it beats the track's best shot, its picture. Not
/// thread-safe: the result sink's thread alone uses it.
public final class TrackNamer: TrackNaming {
    private struct Key: Hashable {
        var source: String
        var id: Int
    }

    public private(set) var enrolled: EnrolledFaces?
    public let keepsDescriptors: Bool
    private let describer: FaceDescriber
    private let follower: GalleryFollower?
    private let board: PeopleBoard?
    /// Counts the enrolled sets the follower gave: a track named among an older one is named again.
    private var generation = 0
    private var tracks: [Key: TrackIdentity] = [:]

    public init(
        describer: FaceDescriber, enrolled: EnrolledFaces?, keepsDescriptors: Bool = false, follower: GalleryFollower? = nil,
        board: PeopleBoard? = nil
    ) {
        self.describer = describer
        self.enrolled = enrolled
        self.keepsDescriptors = keepsDescriptors
        self.follower = follower
        self.board = board
    }

    public func name(_ result: inout FrameResult, in frame: Frame, geometry: PreviewGeometry, detected: [PixelRect]) -> TrackNamingOutcome {
        var outcome = TrackNamingOutcome()
        if let newer = follower?.changes() {
            enrolled = newer
            generation += 1
            board?.enrolled(Set(newer.entries.map(\.name)))
        }
        for (index, box) in zip(result.faces.indices, detected) {
            guard let id = result.faces[index].id else { continue }
            let key = Key(source: result.source, id: id)
            var track = tracks[key] ?? TrackIdentity(enrolledGeneration: generation)
            let enrolledChanged = track.enrolledGeneration != generation
            track.enrolledGeneration = generation
            var descriptor: FaceDescriptor?
            // The face with its box in the frame's buffer, as the describer and the best shot's crop read it.
            var face = result.faces[index]
            face.box = box
            if track.wantsDescription(at: result.frame) {
                do throws(FaceCamError) {
                    if let described = try FaceRecognizer.describe(face, in: frame, geometry: geometry, with: describer) {
                        descriptor = described.descriptor
                        if keepsDescriptors { result.faces[index].descriptor = described.descriptor.values }
                    }
                } catch {
                    if outcome.failure == nil { outcome.failure = error }
                }
            }
            if track.update(described: descriptor, at: result.frame, enrolled: enrolled, enrolledChanged: enrolledChanged) {
                outcome.renamed.append(id)
            }
            tracks[key] = track
            result.faces[index].identity = track.identity
            if let board {
                board.seen(
                    source: result.source, track: id, name: track.identity?.name, zones: face.zones ?? [], description: descriptor,
                    // Pictures are of the unknown only: the panel shows no one else.
                    picture: descriptor == nil || track.identity?.name != nil
                        ? nil : picture(of: face, track: key, in: frame, geometry: geometry, for: board))
            }
        }
        return outcome
    }

    /// The face's aligned crop as a JPEG, when the board wants it: ranked by its quality when measured, else by its score
    /// and size as the quality measures size (a side of 112 pixels or more counts whole), times the share of the box and
    /// its crop margin inside the frame, so that a face coming in at an edge is replaced once it is whole.
    private func picture(
        of face: Face, track: Key, in frame: Frame, geometry: PreviewGeometry, for board: PeopleBoard
    ) -> (jpeg: [UInt8], rank: Double)? {
        let size = min(1, Double(min(face.box.width, face.box.height)) / Double(PeopleBoard.pictureSide))
        let around = face.box.rect.widened(by: FaceCropStyle.defaultMargin)
        let inside = around.intersectionArea(with: Rect(x: 0, y: 0, width: Double(frame.width), height: Double(frame.height))) / around.area
        let rank = (face.quality ?? (face.score ?? 1) * size) * inside
        guard board.wantsPicture(source: track.source, track: track.id, rank: rank) else { return nil }
        let style = face.landmarks == nil ? FaceCropStyle.box(margin: FaceCropStyle.defaultMargin) : .aligned(size: PeopleBoard.pictureSide)
        guard let crop = try? style.crop(face, from: frame, geometry: geometry), let jpeg = try? JPEG.encode(crop, quality: 85) else { return nil }
        return (jpeg, rank)
    }

    public func identity(ofTrack id: Int, source: String) -> FaceIdentity? {
        tracks[Key(source: source, id: id)]?.identity
    }

    public func end(track id: Int, source: String) {
        tracks[Key(source: source, id: id)] = nil
        board?.ended(source: source, track: id)
    }
}
