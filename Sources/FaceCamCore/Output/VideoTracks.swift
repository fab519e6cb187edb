/// One video's faces gathered by track, for the documents that list a video's tracks at its end
/// (CVAT, Label Studio): tracks in order of first sight, each track's boxes in frame order, in the
/// preview's coordinates.
struct VideoTracks {
    struct Entry {
        var frame: Int
        var time: Double
        var box: Rect
        var score: Double?
        /// CVAT's attribute values of the face (`Face.cvatAttributes`).
        var attributes: [(name: String, value: String)]
    }

    let source: String
    let size: PixelSize
    private(set) var lastFrame = 0
    private(set) var lastTime = 0.0
    private var order: [Int] = []
    private var entries: [Int: [Entry]] = [:]

    /// Gathering starts with a video's first frame.
    init(first result: FrameResult) {
        source = result.source
        size = result.previewSize
        add(result)
    }

    mutating func add(_ result: FrameResult) {
        for face in result.faces {
            guard let id = face.id else { preconditionFailure("a video's faces are tracked before a document lists them by track") }
            if entries[id] == nil { order.append(id) }
            entries[id, default: []].append(Entry(
                frame: result.frame, time: result.time, box: face.preview, score: face.score, attributes: face.cvatAttributes))
        }
        lastFrame = max(lastFrame, result.frame)
        lastTime = max(lastTime, result.time)
    }

    /// Each track's id and boxes, in order of first sight.
    var tracks: [(id: Int, entries: [Entry])] { order.map { ($0, entries[$0]!) } }
}
