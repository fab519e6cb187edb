import Foundation

/// Readable lines for people: a line per frame and one per face under it, and a line per event and best shot.
struct TextFormat: EventFormat {
    static let traits = FormatTraits(
        summary: "readable lines",
        fileExtension: "txt", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: false,
        holds: [.poseAndQuality, .identity])
    let opening = ""

    init(context: ExportContext) {}

    func render(_ r: FrameResult) -> String {
        let place = r.time == 0 && r.frame == 0 ? r.source : "\(r.source) frame \(r.frame) at \(decimal(r.time)) s"
        let count = r.faces.count == 1 ? "1 face" : "\(r.faces.count) faces"
        let turned = r.orientation.flatMap { $0 == .up ? nil : " (turned upright: orientation \($0.rawValue), \($0.name))" } ?? ""
        var text = "\(place): \(r.size)\(turned), \(count)\n"
        for (index, face) in r.faces.enumerated() {
            let b = face.box
            let p = face.preview
            text += "  face \(index + 1)" + (face.id.map { " (id \($0))" } ?? "")
                + (face.score.map { String(format: ", score %.2f", $0) } ?? "")
                + ": box \(b.width)x\(b.height) at \(b.x),\(b.y); "
                + "preview \(decimal(p.width))x\(decimal(p.height)) at \(decimal(p.x)),\(decimal(p.y))"
                + (face.previewPose.map { pose in
                    let (roll, yaw, pitch) = (pose.roll, pose.yaw, pose.pitch)
                    return (face.quality.map { String(format: "; quality %.2f", $0) } ?? "")
                        + "; as shown, roll \(decimal(roll.rounded()))°, yaw \(decimal(yaw.rounded()))°, pitch \(decimal(pitch.rounded()))°"
                } ?? "")
                + (face.zones.map { $0.isEmpty ? "; in no zone" : "; in " + $0.joined(separator: ", ") } ?? "")
                + (face.identity.map(identityText) ?? "")
                + "\n"
        }
        return text
    }

    func render(_ event: TrackEvent) -> String {
        let what = switch (event.kind, event.zone) {
        case (.enter, nil): "id \(event.id) entered"
        case (.leave, nil): "id \(event.id) left (seen from frame \(event.firstFrame) to \(event.lastFrame))"
        case (.enter, let zone?): "id \(event.id) entered zone \(zone)"
        case (.leave, let zone?): "id \(event.id) left zone \(zone)"
        case (.name, _): "id \(event.id) renamed"
        }
        return "\(event.source) frame \(event.frame) at \(decimal(event.time)) s: \(what)" + (event.identity.map(identityText) ?? "") + "\n"
    }

    func render(_ shot: BestShot) -> String {
        "\(shot.source) frame \(shot.frame) at \(decimal(shot.time)) s: id \(shot.id)'s best shot, quality "
            + String(format: "%.2f", shot.quality) + ", in \(shot.path)\n"
    }

    /// "; NAME (distance D)" or "; unknown (distance D)".
    private func identityText(_ identity: FaceIdentity) -> String {
        "; " + (identity.name.map(shownOnOneLine) ?? "unknown") + (identity.distance.map { String(format: " (distance %.2f)", $0) } ?? "")
    }
}
