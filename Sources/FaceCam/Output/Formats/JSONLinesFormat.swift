import Foundation

/// JSON Lines: a JSON object per frame, track event and best shot, a line each. It is also the record
/// that `--on-event`, MQTT and the preview server pass on.
public struct JSONLinesFormat: EventFormat {
    static let traits = FormatTraits(
        fileExtension: "jsonl", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: false,
        holds: [.poseAndQuality, .identity, .cluster, .descriptor])
    let opening = ""

    public init() {}

    init(context: ExportContext) {
        self.init()
    }

    public func render(_ r: FrameResult) -> String {
        let faces = r.faces.map { face in
            "{" + (face.id.map { "\"id\":\($0)," } ?? "")
                + "\"box\":[\(face.box.x),\(face.box.y),\(face.box.width),\(face.box.height)],"
                + "\"preview\":[\(commaSeparated(face.preview))]"
                + (face.score.map { ",\"score\":\(decimal($0))" } ?? "")
                + (face.landmarks.map { ",\"landmarks\":\(pairs($0))" } ?? "")
                + (face.previewLandmarks.map { ",\"preview_landmarks\":\(pairs($0))" } ?? "")
                + (face.pose.map { ",\"pose\":\(angles($0))" } ?? "")
                + (face.previewPose.map { ",\"preview_pose\":\(angles($0))" } ?? "")
                + (face.quality.map { ",\"quality\":\(qualityText($0))" } ?? "")
                + (face.zones.map { ",\"zones\":[" + $0.map(jsonString).joined(separator: ",") + "]" } ?? "")
                + (face.identity.map(identityJSON) ?? "") + descriptionJSON(face) + "}"
        }
        return "{\"source\":\(jsonString(r.source)),\"frame\":\(r.frame),\"time\":\(decimal(r.time)),"
            + (r.sequence.map { "\"sequence\":\($0)," } ?? "")
            + (r.orientation.map { "\"orientation\":\($0.rawValue)," } ?? "")
            + "\"size\":[\(r.size.width),\(r.size.height)],"
            + "\"preview_size\":[\(r.previewSize.width),\(r.previewSize.height)],"
            + "\"faces\":[\(faces.joined(separator: ","))]}\n"
    }

    public func render(_ event: TrackEvent) -> String {
        // A track's span: a zone's leave is no track's end.
        let span = event.kind == .leave && event.zone == nil
            ? ",\"first_frame\":\(event.firstFrame),\"first_time\":\(decimal(event.firstTime)),"
                + "\"last_frame\":\(event.lastFrame),\"last_time\":\(decimal(event.lastTime))"
            : ""
        return "{\"event\":\"\(event.kind.rawValue)\"" + (event.zone.map { ",\"zone\":\(jsonString($0))" } ?? "")
            + ",\"id\":\(event.id),\"source\":\(jsonString(event.source)),"
            + "\"frame\":\(event.frame),\"time\":\(decimal(event.time))\(span),\"preview\":[\(commaSeparated(event.preview))]"
            + (event.score.map { ",\"score\":\(decimal($0))" } ?? "") + (event.identity.map(identityJSON) ?? "") + "}\n"
    }

    public func render(_ shot: BestShot) -> String {
        "{\"event\":\"best_shot\",\"id\":\(shot.id),\"source\":\(jsonString(shot.source)),\"frame\":\(shot.frame),"
            + "\"time\":\(decimal(shot.time)),\"quality\":\(qualityText(shot.quality)),\"file\":\(jsonString(shot.path))}\n"
    }

    /// A face's ,"descriptor":[...] (each number as the shortest decimal that reads back as the same Float) and
    /// ,"cluster":N, each when it has one.
    private func descriptionJSON(_ face: Face) -> String {
        let descriptor = face.descriptor.map { ",\"descriptor\":[" + $0.map { "\($0)" }.joined(separator: ",") + "]" } ?? ""
        return descriptor + (face.cluster.map { ",\"cluster\":\($0)" } ?? "")
    }

    /// ,"identity":NAME|null,"distance":D|null, the distance to three decimals.
    private func identityJSON(_ identity: FaceIdentity) -> String {
        let name = identity.name.map(jsonString) ?? "null"
        let distance = identity.distance.map(distanceText) ?? "null"
        return ",\"identity\":\(name),\"distance\":\(distance)"
    }

    /// {"roll":R,"yaw":Y,"pitch":P} in degrees.
    private func angles(_ pose: FacePose) -> String {
        "{\"roll\":\(angleText(pose.roll)),\"yaw\":\(angleText(pose.yaw)),\"pitch\":\(angleText(pose.pitch))}"
    }

    /// [[x,y],...] in YuNet's order.
    private func pairs(_ landmarks: FaceLandmarks) -> String {
        "[" + landmarks.points.map { "[\(decimal($0.x)),\(decimal($0.y))]" }.joined(separator: ",") + "]"
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
