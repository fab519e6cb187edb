/// A DNN model (YuNet, CenterFace) searching the upright aperture at one or more scales.
///
/// - Scales (`scales`, relative to the frame): a scale of 1 is the frame as it is; 2 enlarges
///   it twice (`cv::INTER_LINEAR`), so that faces too small for the model at the frame's size
///   are found. Scales up to 1 are searched shrunk to at most `maximumSearchPixels` (4K UHD; a
///   48-megapixel photograph at 1). An image over the model's `largestSearch` is searched in equal
///   tiles of at most that many pixels overlapping by `tileOverlap`, so that memory stays bounded;
///   a face touching a tile's inner edge is left to the tile that holds it whole, and faces larger
///   than the overlap to the large-face search.
/// - Large faces: a model returns faces larger than its `largestFace` (YuNet: 300 pixels) as
///   fragments or not at all. When the smallest scale's image can hold larger ones, the frame is
///   searched once more, shrunk to a shorter side of `largeFaceSearchSide`; its faces too large
///   for the smallest scale are added unless a face already found is the same face, and replace
///   the faces inside them (IoU 0.3 or more, or half inside) of at least a quarter of their size,
///   their fragments. Smaller faces inside stay, and a large box around two or more faces scoring
///   as well as it is a group of faces, not a face, and is not added.
/// - Merging: with more than one scale, a face under `reliableFace` pixels at the scale it was
///   found at is left to the larger scales; then faces of all searches overlapping a better one by
///   more than the NMS threshold go (non-maximum suppression across scales), each face keeping its
///   own score and landmarks. With one search, faces are exactly the model's.
/// - Focus (`focused`, with more than one scale): the scales above the smallest are searched only
///   in small tiles (`focusTileSide`) around the smallest scale's traces: the faces it found too
///   small to keep, and those scoring under the threshold but at least `focusTraceShare` of it that
///   a tile can hold. A scale is searched everywhere instead when a face too small to keep is too
///   large for a tile, or when the tiles would hold more than `focusBudget` of its pixels (a
///   crowd). A few faces cost a few tiles rather than the whole enlarged frame; a face the smallest
///   scale leaves no trace of, or only a large faint one, is missed.
/// - Fast mode (`searchWidth`): the frame is shrunk to that width first when that at least
///   halves its pixels (`fastShrinkAtLeast`), and the scales apply to the shrunk frame.
///
/// Not thread-safe: give each thread its own.
public final class ModelFaceDetector: FrameFaceDetector {
    /// The shorter side of the large-face search's copy: a face filling it is within YuNet's range.
    public static let largeFaceSearchSide = 240.0
    /// The most pixels a scale up to 1 is searched at: 3840 x 2160.
    public static let maximumSearchPixels = 3840.0 * 2160
    /// How far tiles overlap, in the scale's pixels: a face up to this size lies whole in one.
    public static let tileOverlap = 320
    /// With several scales, a face under this size (pixels, at the scale it was found at) is left
    /// to the larger scales, which box it better: on the crowd tuning set, scales 1,2 scored a lower
    /// AP than 2 alone until they did.
    public static let reliableFace = 16.0
    /// The least shrink factor (of each side) fast mode applies: a frame less than this much wider
    /// than `searchWidth` is searched at full size. A smaller shrink saves under half the time, and
    /// any shrink moves the scores, so faces near the threshold come and go against exact mode.
    public static let fastShrinkAtLeast = 2.0.squareRoot()
    /// Focus: the side of the tiles searched around traces, in the enlarged scale's pixels. Every
    /// tile has this size, so the model is built for one input size (CenterFace: a tile costs about
    /// a thirtieth of a 640x480 frame at scale 1; YuNet pads it to 128 pixels square).
    public static let focusTileSide = 96
    /// Focus: how far the tiles overlap, in the enlarged scale's pixels: a trace up to this size,
    /// less a tile's margin on each side (48), lies whole in one, clear of its inner edges.
    public static let focusTileOverlap = 56
    /// Focus: a trace scores at least this share of the score threshold.
    public static let focusTraceShare = 0.5
    /// Focus: the share of an enlarged scale's pixels its tiles may hold before it is searched everywhere.
    public static let focusBudget = 0.1

    public let kind: FaceModelKind
    public let parameters: ModelParameters
    /// The scales searched, relative to the frame (after fast mode's shrink), each > 0.
    public let scales: [Double]
    /// Fast mode: search the frame shrunk to this width when that at least halves its pixels; nil searches it at full size.
    public let searchWidth: Int?
    /// Whether the scales above the smallest are searched only around the smallest scale's traces.
    public let focused: Bool
    private let searcher: any FaceSearching
    /// The last frame size's searches: a video's frames all share one.
    private var plan: (upright: PixelSize, searches: SearchPlan)?

    public convenience init(
        model: FaceModelFile, parameters: ModelParameters = ModelParameters(), scales: [Double] = [1], searchWidth: Int? = nil,
        focused: Bool = false, engine: EngineSettings = EngineSettings()
    ) throws(FaceCamError) {
        var searched = parameters
        if focused && scales.count > 1 { searched.scoreThreshold *= Self.focusTraceShare }
        self.init(
            searcher: try FaceModelSearcher(model, parameters: searched, engine: engine), parameters: parameters, scales: scales,
            searchWidth: searchWidth, focused: focused)
    }

    /// `searcher` must return the faces scoring at least `focusTraceShare` of the threshold when focused.
    init(searcher: any FaceSearching, parameters: ModelParameters, scales: [Double], searchWidth: Int?, focused: Bool = false) {
        precondition(!scales.isEmpty && scales.allSatisfy { $0 > 0 }, "scales must be positive")
        self.kind = searcher.kind
        self.searcher = searcher
        self.parameters = parameters
        self.scales = scales
        self.searchWidth = searchWidth
        self.focused = focused && scales.count > 1
    }

    /// Finds faces in the upright aperture of `frame`, ordered by box y, then x, then width, then height.
    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        try searcher.prepare(frame, geometry: geometry)
        let plan = searchPlan(for: geometry.uprightSize)
        // OpenCV compares scores in single precision: so does this, so that it keeps every face the model kept.
        let threshold = Double(Float(parameters.scoreThreshold))
        let traceThreshold = Double(Float(parameters.scoreThreshold * Self.focusTraceShare))
        var faces: [ModelFace] = []
        var traces: [SearchPlan.Trace] = []
        var searchCount = plan.searches.count
        for search in plan.searches {
            for face in try searcher.search(search.region, at: search.size) where face.score >= traceThreshold {
                let confident = face.score >= threshold
                if confident && search.keeps(face) {
                    faces.append(face)
                } else if let box = face.box.clipped(to: geometry.uprightSize) {
                    traces.append(SearchPlan.Trace(box: box, tooSmall: confident))
                }
            }
        }
        for scale in plan.focusedScales {
            let searches = scale.searches(around: traces)
            searchCount += searches.count
            for search in searches {
                faces += try searcher.search(search.region, at: search.size).filter { $0.score >= threshold && search.keeps($0) }
            }
        }
        if searchCount > 1 { faces = Self.suppressed(faces, above: parameters.nmsThreshold) }
        if let large = plan.largeFaces {
            let found = try searcher.search(large.search.region, at: large.search.size)
            Self.add(found.filter { $0.score >= threshold && max($0.box.width, $0.box.height) > large.smallestFound }, to: &faces)
        }
        return faces.compactMap { face in
            let box = face.roundedBox
            guard box.width >= parameters.minSize.width, box.height >= parameters.minSize.height,
                  parameters.maxSize.map({ box.width <= $0.width && box.height <= $0.height }) ?? true
            else { return nil }
            return Face(model: face, box: box, geometry: geometry)
        }.inReportingOrder()
    }

    /// The searches a frame of `upright` size gets, made once per size.
    private func searchPlan(for upright: PixelSize) -> SearchPlan {
        if let plan, plan.upright == upright { return plan.searches }
        let searches = SearchPlan(upright: upright, kind: kind, scales: scales, searchWidth: searchWidth, focused: focused)
        plan = (upright, searches)
        return searches
    }

    /// Non-maximum suppression: best score first, a face overlapping a kept one by more than `threshold` IoU goes.
    static func suppressed(_ faces: [ModelFace], above threshold: Double) -> [ModelFace] {
        var kept: [ModelFace] = []
        for face in faces.sorted(by: { $0.score > $1.score }) where !kept.contains(where: { $0.box.overlap(with: face.box) > threshold }) {
            kept.append(face)
        }
        return kept
    }

    /// Adds the large-face search's `large` faces, best first, to `faces` (see the type's summary).
    static func add(_ large: [ModelFace], to faces: inout [ModelFace]) {
        for face in large.sorted(by: { $0.score > $1.score }) {
            if faces.contains(where: { sameFace($0.box, face.box) }) { continue }
            let inside = { (small: ModelFace) in
                small.box.overlap(with: face.box) >= 0.3 || small.box.intersectionArea(with: face.box) >= small.box.area / 2
            }
            // Around two or more faces that score as well, the box is a group of faces, not a face.
            if faces.filter({ inside($0) && $0.score >= face.score }).count >= 2 { continue }
            // A fragment is at least a quarter of the face's size; anything smaller is a face of its own.
            let side = max(face.box.width, face.box.height)
            faces.removeAll { inside($0) && max($0.box.width, $0.box.height) >= side / 4 }
            faces.append(face)
        }
    }

    /// True when a face of the smaller scales, `box`, is the whole of the large-face search's
    /// `face`: IoU 0.7 or more, or 0.5 or more with its centre within 5% of the face's height of
    /// the face's centre. A fragment (an eye and a cheek, a mouth and a chin) overlaps less, or lies off centre.
    private static func sameFace(_ box: Rect, _ face: Rect) -> Bool {
        let overlap = box.overlap(with: face)
        let dx = box.midX - face.midX, dy = box.midY - face.midY
        return overlap >= 0.7 || (overlap >= 0.5 && (dx * dx + dy * dy).squareRoot() <= 0.05 * face.height)
    }
}

/// The searches one frame gets: regions of the upright image, each resized to a size.
struct SearchPlan: Equatable {
    struct Search: Equatable {
        /// In upright pixels.
        var region: PixelRect
        var size: PixelSize
        /// The region's edges that lie inside the image (a tile's), in upright pixels: a face
        /// reaching within `margin` of one is cut by it.
        var innerEdges: Edges = []
        var margin: Double = 0
        /// Faces narrower or lower than this (upright pixels) are left to a larger scale.
        var smallestFace: Double = 0

        struct Edges: OptionSet, Equatable {
            let rawValue: Int
            static let left = Edges(rawValue: 1), top = Edges(rawValue: 2), right = Edges(rawValue: 4), bottom = Edges(rawValue: 8)
        }

        /// Whether a face this search found is kept: neither cut by a tile's edge nor left to a larger scale.
        func keeps(_ face: ModelFace) -> Bool {
            min(face.box.width, face.box.height) >= smallestFace && !cuts(face.box)
        }

        /// Whether `box` reaches within the margin of one of the region's inner edges.
        func cuts(_ box: Rect) -> Bool {
            (innerEdges.contains(.left) && box.minX < Double(region.x) + margin)
                || (innerEdges.contains(.top) && box.minY < Double(region.y) + margin)
                || (innerEdges.contains(.right) && box.maxX > Double(region.x + region.width) - margin)
                || (innerEdges.contains(.bottom) && box.maxY > Double(region.y + region.height) - margin)
        }
    }

    var searches: [Search] = []
    /// The large-face search, and the size (in upright pixels) a face must exceed to be taken from it.
    struct LargeFaces: Equatable {
        var search: Search
        var smallestFound: Double
    }
    var largeFaces: LargeFaces?
    /// Focus: the scales searched only around the smallest scale's traces.
    var focusedScales: [FocusedScale] = []

    /// A face the smallest scale found that a larger one should look at again, in upright pixels
    /// inside the frame: one too small to keep (which must be looked at), or a faint one.
    struct Trace: Equatable {
        var box: Rect
        var tooSmall: Bool
    }

    /// An enlarged scale that focus searches in tiles around traces, or everywhere when they are many.
    struct FocusedScale: Equatable {
        /// The scale's searches when searched everywhere.
        let everywhere: [Search]
        /// The tiles traces choose from, each `focusTileSide` square in the scale's pixels.
        let tiles: [Search]
        /// The most tiles searched: more would hold over `focusBudget` of the scale's pixels.
        let mostTiles: Int

        init(everywhere: [Search], tiles: [Search]) {
            self.everywhere = everywhere
            self.tiles = tiles
            let pixels = { (search: Search) in Double(search.size.width) * Double(search.size.height) }
            mostTiles = Int(ModelFaceDetector.focusBudget * everywhere.map(pixels).reduce(0, +) / pixels(tiles[0]))
        }

        /// The tiles holding `traces`, one per trace, the one whose centre is nearest the trace's
        /// among those holding it whole and clear of their inner edges. `everywhere` when a trace
        /// too small to keep has no such tile, or the tiles hold more than `focusBudget` of the scale's pixels.
        func searches(around traces: [Trace]) -> [Search] {
            var chosen = Set<Int>()
            for trace in traces {
                let holding = tiles.indices.filter { tiles[$0].region.rect.contains(trace.box) && !tiles[$0].cuts(trace.box) }
                let nearest = holding.min { Self.distance(tiles[$0].region.rect, trace.box) < Self.distance(tiles[$1].region.rect, trace.box) }
                if let nearest {
                    chosen.insert(nearest)
                    if chosen.count > mostTiles { return everywhere }
                } else if trace.tooSmall {
                    return everywhere
                }
            }
            return chosen.sorted().map { tiles[$0] }
        }

        private static func distance(_ a: Rect, _ b: Rect) -> Double {
            let dx = a.midX - b.midX, dy = a.midY - b.midY
            return dx * dx + dy * dy
        }
    }

    init(upright: PixelSize, kind: FaceModelKind, scales: [Double], searchWidth: Int?, focused: Bool = false) {
        let whole = PixelRect(x: 0, y: 0, width: upright.width, height: upright.height)
        var shrink = 1.0
        if let searchWidth, Double(upright.width) >= Double(searchWidth) * ModelFaceDetector.fastShrinkAtLeast {
            shrink = Double(searchWidth) / Double(upright.width)
        }
        let cap = (ModelFaceDetector.maximumSearchPixels / (Double(upright.width) * Double(upright.height))).squareRoot()
        var smallest = Double.infinity
        // The smallest scale searched in tiles, which cut faces larger than their overlap.
        var tiledFactor = Double.infinity
        let largestScale = scales.max()!
        for requested in scales {
            let scale = requested * shrink
            let factor = scale <= 1 ? min(scale, cap) : scale
            let size = Self.scaled(upright, by: factor)
            var scaleSearches = Double(size.width) * Double(size.height) <= kind.largestSearch
                ? [Search(region: whole, size: size)] : Self.tiles(of: upright, at: factor, most: kind.largestSearch)
            if scaleSearches.count > 1 { tiledFactor = min(tiledFactor, factor) }
            // A model boxes faces under `reliableFace` pixels worse than a larger scale does, with scores as high.
            if requested < largestScale {
                for index in scaleSearches.indices { scaleSearches[index].smallestFace = ModelFaceDetector.reliableFace / factor }
            }
            if focused && requested > scales.min()! {
                var tiles = Self.tiles(
                    of: upright, at: factor, side: ModelFaceDetector.focusTileSide, overlap: ModelFaceDetector.focusTileOverlap)
                for index in tiles.indices { tiles[index].smallestFace = scaleSearches[0].smallestFace }
                focusedScales.append(FocusedScale(everywhere: scaleSearches, tiles: tiles))
            } else {
                searches += scaleSearches
            }
            smallest = min(smallest, factor)
        }
        let shorter = Double(min(upright.width, upright.height))
        let largest = tiledFactor == smallest ? min(kind.largestFace, Double(ModelFaceDetector.tileOverlap)) : kind.largestFace
        if shorter * smallest > largest {
            let factor = ModelFaceDetector.largeFaceSearchSide / shorter
            largeFaces = LargeFaces(search: Search(region: whole, size: Self.scaled(upright, by: factor)), smallestFound: largest / smallest)
        }
    }

    /// `size` scaled by `factor`, rounded to whole pixels, at least 1x1; itself at 1.
    static func scaled(_ size: PixelSize, by factor: Double) -> PixelSize {
        guard factor != 1 else { return size }
        return PixelSize(
            width: max(1, Int((Double(size.width) * factor).rounded())),
            height: max(1, Int((Double(size.height) * factor).rounded())))
    }

    /// Tiles covering `upright` at `scale`, each `side` square in the scale's pixels (or the
    /// image's side, when shorter), overlapping by at least `overlap` of them.
    static func tiles(of upright: PixelSize, at scale: Double, side: Int, overlap: Int) -> [Search] {
        let tile = Int(Double(side) / scale)
        return grid(of: upright, at: scale, tile: (min(upright.width, tile), min(upright.height, tile)), overlap: overlap)
    }

    /// Tiles covering `upright` at `scale`, each holding at most `most` of the scale's pixels,
    /// overlapping by at least `tileOverlap` of them: of the grids that do, the one with the fewest
    /// pixels in all (rows before columns on a tie).
    static func tiles(of upright: PixelSize, at scale: Double, most: Double) -> [Search] {
        let overlap = Int((Double(ModelFaceDetector.tileOverlap) / scale).rounded(.up))
        // The length of each of `count` tiles covering `length` upright pixels, overlapping by `overlap`.
        func tile(_ length: Int, _ count: Int) -> Int { (length + (count - 1) * overlap + count - 1) / count }
        func counts(_ length: Int) -> ClosedRange<Int> { 1...max(1, length / max(1, overlap)) }
        var best: (pixels: Double, width: Int, height: Int)?
        for columns in counts(upright.width) {
            let width = tile(upright.width, columns)
            guard let rows = counts(upright.height).first(where: {
                Double(width) * Double(tile(upright.height, $0)) * scale * scale <= most
            }) else { continue }
            let height = tile(upright.height, rows)
            let pixels = Double(columns * rows) * Double(width) * Double(height)
            if pixels < best?.pixels ?? .infinity { best = (pixels, width, height) }
        }
        // Tiles twice the overlap's side hold a few hundred thousand pixels, under any model's `largestSearch`.
        return grid(of: upright, at: scale, tile: (best!.width, best!.height), overlap: ModelFaceDetector.tileOverlap)
    }

    /// Tiles of `tile` upright pixels covering `upright`, overlapping by at least `overlap` of the
    /// scale's pixels; the last of a row or column flush with the image's edge, so that every tile
    /// has the same size.
    private static func grid(of upright: PixelSize, at scale: Double, tile: (width: Int, height: Int), overlap: Int) -> [Search] {
        let overlap = Int((Double(overlap) / scale).rounded(.up))
        func starts(_ length: Int, _ tile: Int) -> [Int] {
            guard tile < length else { return [0] }
            return Array(stride(from: 0, to: length - tile, by: max(1, tile - overlap))) + [length - tile]
        }
        let (width, height) = tile
        let size = scaled(PixelSize(width: width, height: height), by: scale)
        return starts(upright.height, height).flatMap { y in
            starts(upright.width, width).map { x in
                var edges: Search.Edges = []
                if x > 0 { edges.insert(.left) }
                if y > 0 { edges.insert(.top) }
                if x + width < upright.width { edges.insert(.right) }
                if y + height < upright.height { edges.insert(.bottom) }
                return Search(
                    region: PixelRect(x: x, y: y, width: width, height: height), size: size, innerEdges: edges, margin: 4 / scale)
            }
        }
    }
}

extension Face {
    /// A model's upright face in the buffer's and the preview's coordinates.
    fileprivate init(model face: ModelFace, box: PixelRect, geometry: PreviewGeometry) {
        let buffer = geometry.bufferRect(fromUpright: box)
        let toBuffer = geometry.bufferToUpright.inverted()!
        let landmarks = face.landmarks.applying(toBuffer)
        self.init(
            box: buffer, preview: geometry.previewRect(of: buffer), score: face.score,
            landmarks: landmarks, previewLandmarks: landmarks.applying(geometry.bufferToPreview))
    }
}
