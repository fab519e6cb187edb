import Foundation

/// JSON Lines: a JSON object per frame, track event and best shot, a line each. It is also the record
/// that `--on-event`, MQTT and the preview server pass on.
public struct JSONLinesFormat: EventFormat {
    static let traits = FormatTraits(
        summary: "one JSON object per frame",
        fileExtension: "jsonl", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: false,
        holds: [.poseAndQuality, .identity, .cluster, .descriptor])
    let opening = ""

    public init() {}

    init(context: ExportContext) {
        self.init()
    }

    public func render(_ r: FrameResult) -> String {
        JSONOutput.members([
            "source": .string(r.source), "frame": .integer(r.frame), "time": .decimal(r.time),
            "sequence": r.sequence.map(JSONOutput.integer), "orientation": r.orientation.map { .integer($0.rawValue) },
            "size": .array([.integer(r.size.width), .integer(r.size.height)]),
            "preview_size": .array([.integer(r.previewSize.width), .integer(r.previewSize.height)]),
            "faces": .array(r.faces.map(record)),
        ]).text + "\n"
    }

    private func record(_ face: Face) -> JSONOutput {
        JSONOutput.members([
            "id": face.id.map(JSONOutput.integer),
            "box": .array([face.box.x, face.box.y, face.box.width, face.box.height].map(JSONOutput.integer)),
            "preview": .rect(face.preview),
            "score": face.score.map(JSONOutput.decimal),
            "landmarks": face.landmarks.map(Self.pairs), "preview_landmarks": face.previewLandmarks.map(Self.pairs),
            "pose": face.pose.map(Self.angles), "preview_pose": face.previewPose.map(Self.angles),
            "quality": face.quality.map { .number(qualityText($0)) },
            "zones": face.zones.map { .array($0.map(JSONOutput.string)) },
        ]).appending(identityMembers(face.identity) + descriptionMembers(face))
    }

    public func render(_ event: TrackEvent) -> String {
        // A track's span: a zone's leave is no track's end.
        let span = event.kind == .leave && event.zone == nil
        return JSONOutput.members([
            "event": .string(event.kind.rawValue), "zone": event.zone.map(JSONOutput.string), "id": .integer(event.id),
            "source": .string(event.source), "frame": .integer(event.frame), "time": .decimal(event.time),
            "first_frame": span ? .integer(event.firstFrame) : nil, "first_time": span ? .decimal(event.firstTime) : nil,
            "last_frame": span ? .integer(event.lastFrame) : nil, "last_time": span ? .decimal(event.lastTime) : nil,
            "preview": .rect(event.preview), "score": event.score.map(JSONOutput.decimal),
        ]).appending(identityMembers(event.identity)).text + "\n"
    }

    public func render(_ shot: BestShot) -> String {
        JSONOutput.members([
            "event": "best_shot", "id": .integer(shot.id), "source": .string(shot.source), "frame": .integer(shot.frame),
            "time": .decimal(shot.time), "quality": .number(qualityText(shot.quality)), "file": .string(shot.path),
        ]).text + "\n"
    }

    /// A face's "descriptor" (each number as the shortest decimal that reads back as the same Float) and
    /// "cluster", each when it has one.
    private func descriptionMembers(_ face: Face) -> [(key: String, value: JSONOutput)] {
        (face.descriptor.map { [("descriptor", .array($0.map { .number("\($0)") }))] } ?? [])
            + (face.cluster.map { [("cluster", .integer($0))] } ?? [])
    }

    /// "identity": NAME or null and "distance": D or null (to three decimals), when the face was looked up.
    private func identityMembers(_ identity: FaceIdentity?) -> [(key: String, value: JSONOutput)] {
        guard let identity else { return [] }
        return [("identity", identity.name.map(JSONOutput.string) ?? .null),
                ("distance", identity.distance.map { .number(distanceText($0)) } ?? .null)]
    }

    /// {"roll":R,"yaw":Y,"pitch":P} in degrees.
    private static func angles(_ pose: FacePose) -> JSONOutput {
        .members(["roll": .number(angleText(pose.roll)), "yaw": .number(angleText(pose.yaw)), "pitch": .number(angleText(pose.pitch))])
    }

    /// [[x,y],...] in YuNet's order.
    private static func pairs(_ landmarks: FaceLandmarks) -> JSONOutput {
        .array(landmarks.points.map { .array([.decimal($0.x), .decimal($0.y)]) })
    }
}

// MARK: - Reading (eval)

extension FaceList {
    /// facecam's records: a still image is named by its source, a video's frame by `SOURCE#FRAME`;
    /// faces by their preview boxes. Event records are skipped.
    static func loadJSONLines(_ path: String, text: String) throws(EvaluationInputError) -> FaceList {
        var images: [ListedImage] = []
        for (index, line) in Self.lines(of: text).enumerated() {
            if line.allSatisfy(\.isWhitespace) { continue }
            let place = "line \(index + 1)"
            guard let record = try? JSONValue.parse(line), record.members != nil else {
                throw EvaluationInputError(path: path, place: place, reason: "not a JSON object: check that the file is facecam's JSON Lines")
            }
            if record["event"] != nil { continue }
            guard let source = record["source"]?.string, let faces = record["faces"]?.array else {
                throw EvaluationInputError(path: path, place: place, reason: "needs source and faces, as facecam's records have")
            }
            let frame = integer(record["frame"]) ?? 0
            var listed: [ListedFace] = []
            for (position, entry) in faces.enumerated() {
                // The preview box: with detect's default geometry, the upright image's pixels, as labelling tools show it.
                guard let box = rect(entry["preview"] ?? entry["box"]) else {
                    throw EvaluationInputError(
                        path: path, place: "\(place) face \(position)", reason: "preview or box must be [x, y, width, height]")
                }
                listed.append(ListedFace(box: box, score: entry["score"]?.number ?? 1))
            }
            let name = FrameResult.imageName(source: source, frame: frame, time: record["time"]?.number ?? 0)
            images.append(ListedImage(name: name, faces: listed))
        }
        return FaceList(path: path, format: .jsonl, images: images, listsEveryImage: true)
    }
}
