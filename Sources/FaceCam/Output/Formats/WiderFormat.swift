import Foundation

/// WIDER FACE. As one file: its ground-truth layout, the image's name, its number of faces, and a
/// line per face (the preview's box, then WIDER's six attributes, blur, expression, illumination,
/// invalid, occlusion and pose, which a detector does not know: all 0); an image without faces has
/// one line of zeros; a video's frames are images of their own, `SOURCE#FRAME`, as eval names them.
/// As a folder (`--output-dir`): its detection results, `EVENT/NAME.txt` (the image's folder, its
/// name), the image's name, the number of faces, and `x y w h score` a face, as WIDER's evaluation reads them.
struct WiderFormat: LineFormat, FolderFormat {
    static let traits = FormatTraits(fileExtension: "txt", isWrittenWhole: true)
    static let indexFiles: [String] = []
    let opening = ""
    private let video: Bool

    init(context: ExportContext) {
        video = context.video
    }

    func render(_ r: FrameResult) -> String {
        let lines = r.faces.map { numbers($0.preview).replacingOccurrences(of: ",", with: " ") + " 0 0 0 0 0 0" }
        return "\(r.imageName)\n\(r.faces.count)\n" + (lines.isEmpty ? ["0 0 0 0 0 0 0 0 0 0"] : lines).joined(separator: "\n") + "\n"
    }

    func item(for result: FrameResult, source: String, frame: String) -> String {
        let stem = DatasetFolder.removingExtension(lastComponent(source))
        let event = video ? stem : lastComponent(directoryOf(ImageRoot.absolute(result.source)))
        return "\(event)/\(stem)\(frame)"
    }

    func file(for result: FrameResult, item: String) -> (path: String, text: String) {
        let lines = result.faces.map { face in
            [face.preview.x, face.preview.y, face.preview.width, face.preview.height, face.score ?? 1].map(decimal)
                .joined(separator: " ") + "\n"
        }
        return ("\(item).txt", "\(lastComponent(result.imageName))\n\(result.faces.count)\n" + lines.joined())
    }

    func index(items: [String], folder: String) -> [(path: String, text: String)] { [] }
}
