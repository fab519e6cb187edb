/// MOTChallenge's lines: frame (from 1), track id (-1 untracked), the preview's box, score (1 for
/// Haar), then -1 for MOTChallenge's 3-D position, which a detector does not know.
struct MOTFormat: LineFormat {
    static let traits = FormatTraits(
        summary: "MOTChallenge's lines",
        fileExtension: "txt", isWrittenWhole: true, isOneVideo: true, isVideoOnly: true, namesImages: false, holds: [])
    let opening = ""

    init(context: ExportContext) {}

    func render(_ r: FrameResult) -> String {
        r.faces.map { face in
            "\(r.frame + 1),\(face.id ?? -1),\(commaSeparated(face.preview)),\(decimal(face.score ?? 1)),-1,-1,-1\n"
        }.joined()
    }
}
