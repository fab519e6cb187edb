import Foundation

/// CSV: a row per face, after a header row (RFC 4180 quoting).
struct CSVFormat: LineFormat {
    static let traits = FormatTraits(
        summary: "one row per face",
        fileExtension: "csv", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: false,
        holds: [.poseAndQuality, .identity])

    let opening = "source,frame,time,face,box_x,box_y,box_width,box_height,preview_x,preview_y,preview_width,preview_height,id,"
        + "score,right_eye_x,right_eye_y,left_eye_x,left_eye_y,nose_x,nose_y,"
        + "mouth_right_x,mouth_right_y,mouth_left_x,mouth_left_y,roll,yaw,pitch,preview_roll,preview_yaw,preview_pitch,quality,"
        + "identity,distance\n"

    init(context: ExportContext) {}

    func render(_ r: FrameResult) -> String {
        let prefix = "\(csvField(r.source)),\(r.frame),\(decimal(r.time))"
        return r.faces.enumerated().map { index, face in
            let b = face.box
            let p = face.preview
            let id = face.id.map(String.init) ?? ""
            let score = face.score.map(decimal) ?? ""
            // Ten coordinates, or ten empty fields for a cascade's face.
            let landmarks: [String] = face.landmarks?.points.flatMap { [decimal($0.x), decimal($0.y)] }
                ?? Array(repeating: "", count: 10)
            // Roll, yaw and pitch in the buffer, then in the preview; empty without --pose.
            let pose: [String] = [face.pose, face.previewPose].flatMap { pose in
                pose.map { [$0.roll, $0.yaw, $0.pitch].map(angleText) } ?? ["", "", ""]
            }
            let fields: [String] = [prefix, String(index), String(b.x), String(b.y), String(b.width), String(b.height),
                                    decimal(p.x), decimal(p.y), decimal(p.width), decimal(p.height), id, score]
            // With --recognize: the name (empty for a stranger) and the distance; both empty without.
            // A name as text shows it (a hand-made gallery's may hold escape sequences), quoted as CSV needs.
            let identity = [face.identity?.name.map { csvField(shownOnOneLine($0)) } ?? "", face.identity?.distance.map(distanceText) ?? ""]
            return (fields + landmarks + pose + [face.quality.map(qualityText) ?? ""] + identity).joined(separator: ",") + "\n"
        }.joined()
    }
}

/// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
func csvField(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
