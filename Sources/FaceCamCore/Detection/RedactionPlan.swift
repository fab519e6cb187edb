import Foundation

/// Where each face of a whole video is hidden, planned between redaction's two passes.
///
/// The first pass searches some frames (`searched`) and gives each face found its track's id
/// (`record`). Between the passes, `masks()` makes each track's masks:
/// - between two of its detections, the box interpolated linearly;
/// - a box the picture's edge cuts (a face coming in is found by its part in view, boxed alone) grown to
///   the face's size where it is wholly inside, on the edge's side;
/// - before its first detection and after its last, the box moved on at the face's speed until it has
///   left the picture, when that takes at most `maximumExtension` frames: a face that came in or went
///   out through an edge is hidden from the frame it entered to the one it left;
/// - otherwise (a face that appeared or vanished in place: it turned, or something passed in front),
///   over the frames not searched on that side and `grace` more, standing where it was found.
/// A track found at one searched frame alone, most often a detector's mistake, is hidden over the
/// frames not searched around it only, without the grace, unless `extendOnce` is set.
/// Tracks the tracker split are joined into one face where the later begins where the earlier's face went, never
/// across a scene cut; a face's tracks keep their own masks and the frames between them are hidden too. A scene cut
/// bounds no mask: one carried a few frames into the next scene hides a patch of it, where a cut seen in a fast pan
/// would leave a face. Memory is a box per face per searched frame, never a frame.
public struct RedactionPlan: Sendable {
    public struct Settings: Hashable, Sendable {
        /// Frames a face is hidden past the frames not searched, where it did not leave through an edge.
        public var grace: Int
        /// The most frames a box is moved on to the edge before and after its track.
        public var maximumExtension: Int
        /// A track found at one searched frame alone is hidden over the grace too (`--no-lookahead`).
        public var extendOnce: Bool

        public init(grace: Int, maximumExtension: Int, extendOnce: Bool = false) {
            self.grace = grace
            self.maximumExtension = maximumExtension
            self.extendOnce = extendOnce
        }
    }

    /// A face found at a searched frame: the frame and its box in the picture.
    public struct Detection: Hashable, Sendable {
        public var frame: Int
        public var box: Rect
    }

    public let settings: Settings
    /// The picture the boxes are in (the preview).
    public let picture: Rect
    private var detections: [Int: [Detection]] = [:]
    /// Frames searched, in order.
    private var searched: [Int] = []
    /// Searched frames that begin a new scene.
    private var cuts: [Int] = []

    public init(settings: Settings, picture: PixelSize) {
        self.settings = settings
        self.picture = Rect(x: 0, y: 0, width: Double(picture.width), height: Double(picture.height))
    }

    /// Records a searched frame (frames come in order) and its faces by track id.
    public mutating func record(frame: Int, faces: [(id: Int, box: Rect)]) {
        precondition(searched.last.map { $0 < frame } ?? true, "searched frames come in order")
        searched.append(frame)
        for face in faces { detections[face.id, default: []].append(Detection(frame: frame, box: face.box)) }
    }

    /// Frame `index`, searched, begins a new scene: no track is joined across it (cuts come in order).
    public mutating func cut(at index: Int) {
        precondition(cuts.last.map { $0 < index } ?? true, "cuts come in order")
        cuts.append(index)
    }

    /// Each face's masks, frame by frame, to read in frame order, and the faces counted. A face's tracks keep their own
    /// masks, and the frames between two of them are hidden where the face went, interpolated.
    public func masks() -> Masks {
        let faces = self.faces()
        var spans: [Span] = []
        for tracks in faces {
            spans += tracks.compactMap { span(of: $0) }
            for (earlier, later) in zip(tracks, tracks.dropFirst()) {
                let bridge = [earlier[earlier.count - 1], later[0]]
                spans.append(Span(first: bridge[0].frame, last: bridge[1].frame, detections: bridge, before: Point(x: 0, y: 0),
                                  after: Point(x: 0, y: 0), sweeps: []))
            }
        }
        return Masks(spans: spans.sorted { $0.first < $1.first }, picture: picture, faceCount: faces.count)
    }

    /// The faces: each its tracks in frame order, a track that ends joined to one that begins where its face went at the
    /// next searched frame or the one after it, in the same scene (the tracker lets a face go when its box changes size
    /// fast, as it does coming in through an edge, or when it moves fast between two searches), and each box the edge
    /// cuts grown to the face's size.
    func faces() -> [[[Detection]]] {
        let tracks = detections.keys.sorted().map { detections[$0]! }.sorted { $0[0].frame < $1[0].frame }
        // The tracks by their first frame, to look up those that may continue one: linear in the tracks.
        var starting: [Int: [Int]] = [:]
        for (index, track) in tracks.enumerated() { starting[track[0].frame, default: []].append(index) }
        var taken = Set<Int>()
        var faces: [[[Detection]]] = []
        for index in tracks.indices where !taken.contains(index) {
            taken.insert(index)
            var face = [tracks[index]]
            while let last = face.last?.last, let next = searched.first(after: last.frame) {
                let candidates = ([next] + [searched.first(after: next)].compactMap { $0 }).flatMap { starting[$0] ?? [] }
                guard let joined = candidates.first(where: { !taken.contains($0) && continues(face[face.count - 1], with: tracks[$0]) })
                else { break }
                taken.insert(joined)
                face.append(tracks[joined])
            }
            faces.append(grownAtEdges(face))
        }
        return faces
    }

    /// True when `later` begins where `earlier`'s face went, with no cut between: its first box meets the last moved on
    /// at its speed, or its centre is within the reach of a face that moved at up to half its size a frame (twice the
    /// tracker's gate for a face whose speed it does not know: the tracker follows no further a face at rest that set off
    /// between two searches, nor a small one crossing the picture fast).
    private func continues(_ earlier: [Detection], with later: [Detection]) -> Bool {
        let end = earlier[earlier.count - 1], start = later[0]
        guard start.frame > end.frame, cuts.first(after: end.frame).map({ $0 > start.frame }) ?? true else { return false }
        let frames = Double(start.frame - end.frame)
        let moved = end.box.moved(by: step(of: earlier.suffix(Self.speedDetections)), times: frames)
        let reach = max(end.box.width, end.box.height) * (0.35 + 0.5 * min(frames, 15))
        return moved.intersectionArea(with: start.box) > 0
            || hypot(start.box.midX - moved.midX, start.box.midY - moved.midY) <= reach
    }

    /// A face's tracks with each box the picture's edge cuts grown to the size of the face's nearest box wholly inside the
    /// picture, on the edge's side (a face coming in is found by its part in view, boxed alone, and a detector's box
    /// starts lower or further in than the face), and to take in that nearest box moved on at the speed between it and
    /// the inside box next nearest, where the two meet.
    private func grownAtEdges(_ tracks: [[Detection]]) -> [[Detection]] {
        let inside = tracks.joined().filter { edges(cutting: $0.box).isEmpty }
        guard !inside.isEmpty else { return tracks }
        let frames = inside.map(\.frame)
        return tracks.map { track in
            track.map { detection in
                let cut = edges(cutting: detection.box)
                guard !cut.isEmpty else { return detection }
                // The two inside boxes nearest in time: around the detection's frame in the ordered inside boxes.
                let after = frames.firstIndex(notBelow: detection.frame)
                let around = [after - 2, after - 1, after, after + 1].filter { inside.indices.contains($0) }
                let nearest = around.sorted { abs(inside[$0].frame - detection.frame) < abs(inside[$1].frame - detection.frame) }
                    .prefix(2).map { inside[$0] }
                let full = nearest[0].box, box = detection.box
                let width = max(box.width, full.width), height = max(box.height, full.height)
                let (left, right, top, bottom) = (cut.contains(.left), cut.contains(.right), cut.contains(.top), cut.contains(.bottom))
                let x = right && !left ? box.minX : left && !right ? box.maxX - width : box.midX - width / 2
                let y = bottom && !top ? box.minY : top && !bottom ? box.maxY - height : box.midY - height / 2
                var grown = detection
                grown.box = Rect(x: x, y: y, width: width, height: height)
                if nearest.count == 2 {
                    let (a, b) = nearest[0].frame < nearest[1].frame ? (nearest[0], nearest[1]) : (nearest[1], nearest[0])
                    let moved = nearest[0].box.moved(by: step(of: [a, b][...]), times: Double(detection.frame - nearest[0].frame))
                    if moved.intersectionArea(with: grown.box) > 0 { grown.box = grown.box.union(moved) }
                }
                return grown
            }
        }
    }

    enum Edge: Hashable { case left, right, top, bottom }

    /// The picture's edges `box` reaches, or comes within a tenth of its size of (3 pixels at least): a detector boxes
    /// the part of a face in view a little inside the edge.
    func edges(cutting box: Rect) -> Set<Edge> {
        let marginX = max(3, box.width / 10), marginY = max(3, box.height / 10)
        var edges = Set<Edge>()
        if box.minX <= picture.minX + marginX { edges.insert(.left) }
        if box.maxX >= picture.maxX - marginX { edges.insert(.right) }
        if box.minY <= picture.minY + marginY { edges.insert(.top) }
        if box.maxY >= picture.maxY - marginY { edges.insert(.bottom) }
        return edges
    }

    /// One face's masks: the frames it covers and its box at each.
    struct Span: Sendable {
        var first: Int
        var last: Int
        var detections: [Detection]
        /// How far its box moves a frame before its first detection and after its last.
        var before: Point
        var after: Point
        /// Over the frames not searched before its first detection and after its last, when an edge lies within its
        /// reach: the strip from its box to beyond that edge, where it may have come in or gone out faster than its
        /// detections say.
        var sweeps: [(frames: ClosedRange<Int>, box: Rect)]

        /// Where the face is at `frame`: its box, and the strips it may have swept.
        func boxes(at frame: Int) -> [Rect] {
            [box(at: frame)] + sweeps.filter { $0.frames.contains(frame) }.map(\.box)
        }

        /// Its detections' box interpolated between them, moved on at its speed beyond.
        func box(at frame: Int) -> Rect {
            let head = detections[0], tail = detections[detections.count - 1]
            if frame <= head.frame { return head.box.moved(by: before, times: Double(frame - head.frame)) }
            if frame >= tail.frame { return tail.box.moved(by: after, times: Double(frame - tail.frame)) }
            var low = 0, high = detections.count - 1
            while high - low > 1 {
                let middle = (low + high) / 2
                if detections[middle].frame <= frame { low = middle } else { high = middle }
            }
            let a = detections[low], b = detections[high]
            let t = Double(frame - a.frame) / Double(b.frame - a.frame)
            return Rect(
                x: a.box.x + t * (b.box.x - a.box.x), y: a.box.y + t * (b.box.y - a.box.y),
                width: a.box.width + t * (b.box.width - a.box.width), height: a.box.height + t * (b.box.height - a.box.height))
        }
    }

    private func span(of detections: [Detection]) -> Span? {
        guard let head = detections.first, let tail = detections.last else { return nil }
        let once = detections.count == 1
        let grace = once && !settings.extendOnce ? 0 : settings.grace
        // To the edge at the speed of the first and last detections, else over the frames not searched and the grace.
        let before = step(of: detections.prefix(Self.speedDetections)), after = step(of: detections.suffix(Self.speedDetections))
        let unsearchedBefore = head.frame - (searched.last(before: head.frame) ?? -1) - 1
        let back = extent(from: head.box, step: before.negated, window: unsearchedBefore + grace)
        let unsearchedAfter = searched.first(after: tail.frame).map { $0 - tail.frame - 1 } ?? settings.maximumExtension
        let forward = extent(from: tail.box, step: after, window: unsearchedAfter + grace)
        var sweeps: [(frames: ClosedRange<Int>, box: Rect)] = []
        if unsearchedBefore > 0, let strip = sweep(from: head.box, over: unsearchedBefore + 1) {
            sweeps.append(((head.frame - unsearchedBefore)...(head.frame - 1), strip))
        }
        if unsearchedAfter > 0, let strip = sweep(from: tail.box, over: unsearchedAfter + 1) {
            sweeps.append(((tail.frame + 1)...(tail.frame + unsearchedAfter), strip))
        }
        return Span(
            first: max(head.frame - back, 0), last: tail.frame + forward, detections: detections, before: before, after: after,
            sweeps: sweeps)
    }

    /// The strip from `box` to just beyond the picture's nearest edge, when a face moving at up to half its size a frame
    /// (as `continues` allows) reaches that edge within `frames`; nil when none is that near.
    private func sweep(from box: Rect, over frames: Int) -> Rect? {
        let reach = max(box.width, box.height) * 0.5 * Double(frames)
        let distances: [(Double, Rect)] = [
            (box.minX - picture.minX, Rect(x: picture.minX - box.width, y: box.y, width: box.maxX - picture.minX + box.width, height: box.height)),
            (picture.maxX - box.maxX, Rect(x: box.minX, y: box.y, width: picture.maxX + box.width - box.minX, height: box.height)),
            (box.minY - picture.minY, Rect(x: box.x, y: picture.minY - box.height, width: box.width, height: box.maxY - picture.minY + box.height)),
            (picture.maxY - box.maxY, Rect(x: box.x, y: box.minY, width: box.width, height: picture.maxY + box.height - box.minY)),
        ]
        guard let nearest = distances.min(by: { $0.0 < $1.0 }), nearest.0 <= reach else { return nil }
        return nearest.1
    }

    /// How many frames to move `box` on by `step`: until it has left the picture, when that is within
    /// `maximumExtension` frames and beyond `window`; else `window`.
    private func extent(from box: Rect, step: Point, window: Int) -> Int {
        guard step.x != 0 || step.y != 0 else { return window }
        for n in 1...max(settings.maximumExtension, 1) where box.moved(by: step, times: Double(n)).intersectionArea(with: picture) == 0 {
            return max(n - 1, window)
        }
        return window
    }

    /// The detections a track's speed at either end is measured on.
    static let speedDetections = 2

    /// A face's movement per frame from the first of `detections` to the last: its centre's, or on an axis where an edge
    /// cuts the boxes, their side away from that edge (the boxes grow and shrink there as the face comes in or goes out).
    private func step(of detections: ArraySlice<Detection>) -> Point {
        guard let a = detections.first, let b = detections.last, b.frame > a.frame else { return Point(x: 0, y: 0) }
        let cut = edges(cutting: a.box).union(edges(cutting: b.box))
        func along(_ low: Edge, _ high: Edge, _ min: (Rect) -> Double, _ mid: (Rect) -> Double, _ max: (Rect) -> Double) -> Double {
            let side = cut.contains(low) == cut.contains(high) ? mid : cut.contains(high) ? min : max
            return (side(b.box) - side(a.box)) / Double(b.frame - a.frame)
        }
        return Point(x: along(.left, .right, \.minX, \.midX, \.maxX), y: along(.top, .bottom, \.minY, \.midY, \.maxY))
    }

    /// The masks at each frame, read in frame order: pass 2's side of the plan.
    public struct Masks: Sendable {
        /// The tracks' spans by their first frame.
        private let spans: [Span]
        private let picture: Rect
        /// The faces the masks hide, each counted once however many tracks it took.
        public let faceCount: Int
        private var nextSpan = 0
        private var open: [Span] = []
        private var lastFrame = Int.min

        init(spans: [Span], picture: Rect, faceCount: Int) {
            self.spans = spans
            self.picture = picture
            self.faceCount = faceCount
        }

        /// The boxes to hide at `frame` (after the frames before it), those that reach into the picture.
        public mutating func boxes(at frame: Int) -> [Rect] {
            precondition(frame > lastFrame, "masks are read in frame order")
            lastFrame = frame
            while nextSpan < spans.count, spans[nextSpan].first <= frame {
                open.append(spans[nextSpan])
                nextSpan += 1
            }
            open.removeAll { $0.last < frame }
            return open.flatMap { $0.boxes(at: frame) }.filter { $0.intersectionArea(with: picture) > 0 }
        }
    }
}

extension [Int] {
    /// In an ascending array: the last element below `value`.
    func last(before value: Int) -> Int? {
        let i = firstIndex(notBelow: value)
        return i > 0 ? self[i - 1] : nil
    }

    /// In an ascending array: the first element above `value`.
    func first(after value: Int) -> Int? {
        let i = firstIndex(notBelow: value + 1)
        return i < count ? self[i] : nil
    }

    func firstIndex(notBelow value: Int) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
