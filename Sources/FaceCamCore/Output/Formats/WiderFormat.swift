import Foundation

/// WIDER FACE. As one file: its ground-truth layout, the image's name, its number of faces, and a
/// line per face (the preview's box, then WIDER's six attributes, blur, expression, illumination,
/// invalid, occlusion and pose, which a detector does not know: all 0); an image without faces has
/// one line of zeros; a video's frames are images of their own, `SOURCE#FRAME`, as eval names them.
/// As a folder (`--output-dir`): its detection results, `EVENT/NAME.txt` (the image's folder, its
/// name), the image's name, the number of faces, and `x y w h score` a face, as WIDER's evaluation reads them.
struct WiderFormat: LineFormat, FolderFormat {
    static let traits = FormatTraits(
        summary: "WIDER FACE's ground-truth text, or in --output-dir its detection results",
        fileExtension: "txt", isWrittenWhole: true, isOneVideo: false, isVideoOnly: false, namesImages: true, holds: [])
    static let indexFiles: [String] = []
    let opening = ""
    private let video: Bool

    init(context: ExportContext) {
        video = context.video
    }

    func render(_ r: FrameResult) -> String {
        let lines = r.faces.map { commaSeparated($0.preview).replacingOccurrences(of: ",", with: " ") + " 0 0 0 0 0 0" }
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

// MARK: - Reading (eval)

extension FaceList {
    /// WIDER's layout: the image's name, the number of faces, then a line per face (one line of
    /// zeros for none): x y w h and, in the ground truth, blur expression illumination invalid
    /// occlusion pose, or, in detection results, the score. `invalid` faces are ignored.
    static func parseWider(_ path: String, text: String) throws(EvaluationInputError) -> [ListedImage] {
        let lines = Self.lines(of: text).map { $0.trimmingCharacters(in: .whitespaces) }
        var images: [ListedImage] = []
        var index = 0
        func fail(_ reason: String) -> EvaluationInputError {
            EvaluationInputError(path: path, place: "line \(index + 1)", reason: reason + ": check that it is WIDER FACE's format")
        }
        while index < lines.count {
            let name = String(lines[index].prefix(200))
            index += 1
            if name.isEmpty { continue }
            guard index < lines.count, let count = Int(lines[index]), count >= 0 else {
                throw fail("expected the number of faces of \(name)")
            }
            index += 1
            var faces: [ListedFace] = []
            // The ground truth follows a count of 0 with a line of zeros; detection files do not.
            let placeholder = count == 0 && index < lines.count
                && lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).count >= 4
                && lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).allSatisfy { Double($0) != nil }
            for _ in 0..<(count == 0 ? (placeholder ? 1 : 0) : count) {
                guard index < lines.count else { throw fail("\(name) has fewer face lines than its count, \(count)") }
                let fields = lines[index].split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
                guard fields.count >= 4, fields.allSatisfy({ $0?.isFinite == true }) else {
                    throw fail("expected a face of \(name) as numbers: x y w h and its flags or score")
                }
                let numbers = fields.map { $0! }
                if count > 0 {
                    let box = Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
                    guard box.width >= 0, box.height >= 0 else { throw fail("a face of \(name) has a negative size") }
                    let invalid = numbers.count >= 10 && numbers[7] == 1
                    faces.append(ListedFace(box: box, score: numbers.count == 5 ? numbers[4] : 1, ignored: invalid))
                }
                index += 1
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return images
    }
}
