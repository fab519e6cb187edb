/// YOLO: `labels/train/ITEM.txt`, a line per face (class 0, then centre x, centre y, width and height
/// as fractions of the image, then, with landmarks, YOLO-pose keypoints x y 2), and `data.yaml`.
struct YOLOFolder: FolderFormat {
    static let traits = FormatTraits(
        summary: "a folder of YOLO label files and data.yaml",
        fileExtension: "txt", isWrittenWhole: false, isOneVideo: false, isVideoOnly: false, namesImages: true, holds: [])
    static let indexFiles = ["data.yaml"]
    private let context: ExportContext
    /// Some face had landmarks: `data.yaml` declares the keypoints.
    private var landmarks = false

    init(context: ExportContext) {
        self.context = context
    }

    func item(for result: FrameResult, source: String, frame: String) -> String {
        DatasetFolder.imageItem(source: source, frame: frame, context: context)
    }

    /// Boxes are clipped to the image and keypoints outside it are `0 0 0`, as YOLO's loaders require
    /// fractions from 0 to 1.
    mutating func file(for result: FrameResult, item: String) -> (path: String, text: String) {
        let w = Double(max(result.previewSize.width, 1))
        let h = Double(max(result.previewSize.height, 1))
        let text = result.faces.compactMap { face in
            guard let b = face.preview.clipped(to: result.previewSize) else { return nil }
            var fields = [(b.x + b.width / 2) / w, (b.y + b.height / 2) / h, b.width / w, b.height / h].map(decimal)
            if let points = face.previewLandmarks?.points {
                landmarks = true
                fields += points.flatMap { point in
                    (0...w).contains(point.x) && (0...h).contains(point.y) ? [decimal(point.x / w), decimal(point.y / h), "2"] : ["0", "0", "0"]
                }
            }
            return "0 " + fields.joined(separator: " ") + "\n"
        }.joined()
        return ("labels/train/\(item).txt", text)
    }

    func index(items: [String], folder: String) -> [(path: String, text: String)] {
        var yaml = "# Faces found by \(context.model): labels/train has a file per image; put the images in images/train\n"
            + "# under the same names.\npath: \(jsonString(ImageRoot.absolute(folder)))\ntrain: images/train\nval: images/train\nnames:\n  0: face\n"
        if landmarks { yaml += "kpt_shape: [5, 3]\nflip_idx: [1, 0, 2, 4, 3]\n" }
        return [(Self.indexFiles[0], yaml)]
    }
}
