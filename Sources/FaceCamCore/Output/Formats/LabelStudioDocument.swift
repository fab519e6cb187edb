import Foundation

/// Label Studio pre-annotation tasks: a JSON array, a task per image, or per video.
///
/// An image's faces are `rectanglelabels` results of one prediction, in percent of the upright image
/// (the preview; the part of each box inside it), with `original_width`/`original_height`, each face's score and the prediction's
/// (the lowest face score: the image is only as sure as its least sure face). A video's tracks are
/// `videorectangle` results: a keyframe per frame the face was found in (frames from 1, as Label
/// Studio counts), the last keyframe disabled so that the box ends there. Tasks name their file as
/// Label Studio's local-files storage serves it: `/data/local-files/?d=PATH`, PATH relative to
/// `--image-root` (Label Studio's LOCAL_FILES_DOCUMENT_ROOT); without a root, the path as given.
struct LabelStudioDocument: DocumentFormat {
    static let traits = FormatTraits(
        summary: "Label Studio tasks",
        fileExtension: "json", isWrittenWhole: true, isOneVideo: false, isVideoOnly: false, namesImages: true, holds: [])
    private let context: ExportContext
    private var tasks = 0
    /// The video being gathered.
    private var video: VideoTracks?

    init(context: ExportContext) {
        self.context = context
    }

    let opening = "["

    mutating func add(_ result: FrameResult) -> String {
        guard context.video else { return separator() + imageTask(result) }
        var text = ""
        if let current = video, current.source != result.source {
            text = separator() + videoTask()
            video = nil
        }
        if video == nil { video = VideoTracks(first: result) } else { video!.add(result) }
        return text
    }

    mutating func closing() -> String {
        (video == nil ? "" : separator() + videoTask()) + "\n]\n"
    }

    private mutating func separator() -> String {
        tasks += 1
        return tasks == 1 ? "\n" : ",\n"
    }

    /// `source` is already relative to the image root, when there is one (`ResultWriter` sees to that).
    private func reference(_ source: String) -> String {
        guard context.imageRoot != nil else { return source }
        let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=#?"))
        return "/data/local-files/?d=" + (source.addingPercentEncoding(withAllowedCharacters: allowed) ?? source)
    }

    private func task(_ kind: String, _ source: String, _ results: [JSONOutput], score: Double?) -> String {
        JSONOutput.members([
            "data": .members([kind: .string(reference(source))]),
            "predictions": .array([.members([
                "model_version": .string(context.model), "score": score.map(JSONOutput.decimal), "result": .array(results),
            ])]),
        ]).text
    }

    private func imageTask(_ result: FrameResult) -> String {
        let size = result.previewSize
        let results = result.faces.enumerated().compactMap { index, face -> JSONOutput? in
            guard let box = face.preview.clipped(to: size) else { return nil }
            return .members([
                "id": .string("face\(index + 1)"), "type": "rectanglelabels", "from_name": "label", "to_name": "image",
                "original_width": .integer(size.width), "original_height": .integer(size.height), "image_rotation": 0,
                "value": .object(Self.percent(box, of: size) + [("rotation", 0), ("rectanglelabels", .array(["face"]))]),
                "score": face.score.map(JSONOutput.decimal),
            ])
        }
        let lowest = result.faces.compactMap(\.score).min()
        return task("image", result.source, results, score: lowest)
    }

    private func videoTask() -> String {
        guard let video else { return "" }
        // The last frame lasts a frame's time too (the mean frame time so far).
        let duration = video.lastFrame > 0 ? video.lastTime * Double(video.lastFrame + 1) / Double(video.lastFrame) : video.lastTime
        let results = video.tracks.map { id, boxes in
            // A box wholly outside the frame (`--gravity fill`) is kept as an empty one at the edge.
            let sequence = boxes.enumerated().map { index, entry -> JSONOutput in
                let shown = entry.box.clipped(to: video.size) ?? Self.edge(entry.box, of: video.size)
                return .object([("frame", .integer(entry.frame + 1)), ("time", .decimal(entry.time)), ("enabled", .bool(index < boxes.count - 1))]
                    + Self.percent(shown, of: video.size) + [("rotation", 0)])
            }
            return JSONOutput.members([
                "id": .string("track\(id)"), "type": "videorectangle", "from_name": "box", "to_name": "video",
                "value": .members([
                    "framesCount": .integer(video.lastFrame + 1), "duration": .decimal(duration), "sequence": .array(sequence),
                    "labels": .array(["face"]),
                ]),
            ])
        }
        return task("video", video.source, results, score: nil)
    }

    /// `box` pressed against the frame's nearest edges, with no size.
    private static func edge(_ box: Rect, of size: PixelSize) -> Rect {
        Rect(x: min(max(box.x, 0), Double(size.width)), y: min(max(box.y, 0), Double(size.height)), width: 0, height: 0)
    }

    /// x, y, width and height in percent of `size`.
    private static func percent(_ box: Rect, of size: PixelSize) -> [(key: String, value: JSONOutput)] {
        let w = Double(max(size.width, 1))
        let h = Double(max(size.height, 1))
        return [("x", .decimal(box.x / w * 100)), ("y", .decimal(box.y / h * 100)),
                ("width", .decimal(box.width / w * 100)), ("height", .decimal(box.height / h * 100))]
    }
}

// MARK: - Reading (eval)

extension FaceList {
    /// Label Studio image tasks: the image named by `data.image` (a local-files URL's path, decoded),
    /// faces from the first annotation's rectangles (a ground truth) or else the first prediction's,
    /// in percent of `original_width` and `original_height`; scores from the result or the prediction.
    static func loadLabelStudio(_ path: String, _ tasks: [JSONValue]) throws(EvaluationInputError) -> FaceList {
        // Only rectangles labelled face, when any is (as VOC's and CVAT's readers take them).
        func labels(_ result: JSONValue) -> [String] {
            (result["value"]?["rectanglelabels"]?.array ?? []).compactMap { $0.string?.lowercased() }
        }
        func resultSets(_ task: JSONValue) -> [JSONValue] {
            (task["annotations"]?.array ?? []) + (task["predictions"]?.array ?? [])
        }
        func results(_ task: JSONValue) -> [JSONValue] {
            (resultSets(task).first?["result"]?.array ?? []).filter { $0.members != nil }
        }
        let anyFace = tasks.contains { results($0).contains { labels($0).contains("face") } }
        var images: [ListedImage] = []
        for (index, entry) in tasks.enumerated() {
            let place = "task \(index + 1)"
            guard entry.members != nil, let data = entry["data"], data.members != nil else {
                throw EvaluationInputError(path: path, place: place, reason: "needs data: check that it is Label Studio's tasks")
            }
            guard var name = data["image"]?.string else {
                throw EvaluationInputError(path: path, place: place, reason: "needs data.image: eval reads image tasks, not video ones")
            }
            if let query = name.range(of: "?d=") { name = String(name[query.upperBound...]).removingPercentEncoding ?? name }
            let chosen = resultSets(entry).first
            let rectangles = results(entry).filter { $0["type"]?.string == "rectanglelabels" }
            var faces: [ListedFace] = []
            for (position, result) in rectangles.enumerated() where !anyFace || labels(result).contains("face") {
                let box = result["value"]
                let numbers = ["x", "y", "width", "height"].map { box?[$0]?.number } + [result["original_width"]?.number, result["original_height"]?.number]
                guard numbers.allSatisfy({ $0?.isFinite == true }), let width = numbers[4], let height = numbers[5], width > 0, height > 0,
                      numbers[2]! >= 0, numbers[3]! >= 0 else {
                    throw EvaluationInputError(
                        path: path, place: "\(place) result \(position + 1)",
                        reason: "needs x, y, width, height, original_width and original_height as numbers, the sizes not negative")
                }
                let score = result["score"]?.number ?? chosen?["score"]?.number ?? 1
                faces.append(ListedFace(
                    box: Rect(x: numbers[0]! * width / 100, y: numbers[1]! * height / 100, width: numbers[2]! * width / 100,
                              height: numbers[3]! * height / 100),
                    score: score))
            }
            images.append(ListedImage(name: name, faces: faces))
        }
        return FaceList(path: path, format: .labelStudio, images: images, listsEveryImage: true)
    }
}
