/// How fast mode trades exactness for speed.
public struct FastSettings: Hashable, Sendable {
    /// Full searches run on the frame shrunk to this width (never enlarged).
    public var detectWidth: Int
    /// Between full searches, only the regions around known faces are searched;
    /// a full search comes at least every this many frames, and whenever a known face is lost.
    public var fullSearchEvery: Int

    public init(detectWidth: Int = 320, fullSearchEvery: Int = 5) {
        self.detectWidth = detectWidth
        self.fullSearchEvery = fullSearchEvery
    }
}

/// Fast mode. Each face of the last frame is followed by searching its
/// surroundings at full resolution and nearby scales. A full search runs on
/// a shrunk frame when a face was lost, when none is known, or every
/// `fullSearchEvery` frames; each face it finds is confirmed and sharpened
/// the same way, and joins the faces still followed. Frames must come in
/// order: it remembers the last frame's faces.
public final class FastFaceDetector: FrameFaceDetector {
    public let detector: FaceDetector
    public let settings: FastSettings
    /// Faces of the last frame, in upright pixels.
    private var known: [PixelRect] = []
    private var framesSinceFullSearch = 0
    /// Frames seen and full searches run, for measuring.
    public private(set) var frames = 0
    public private(set) var fullSearches = 0

    public init(detector: FaceDetector, settings: FastSettings = FastSettings()) {
        self.detector = detector
        self.settings = settings
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        try detector.prepare(frame, geometry: geometry)
        frames += 1
        var found: [PixelRect] = []
        var lost = false
        for box in known {
            if let next = try refine(box) { found.append(next) } else { lost = true }
        }
        if lost || known.isEmpty || framesSinceFullSearch + 1 >= settings.fullSearchEvery {
            // Faces still followed stay: a shrunk search can miss what following keeps.
            found += try fullSearch(upright: geometry.uprightSize)
            framesSinceFullSearch = 0
            fullSearches += 1
        } else {
            framesSinceFullSearch += 1
        }
        known = withoutDuplicates(found)
        return detector.faces(fromUpright: known, geometry: geometry)
    }

    private func fullSearch(upright: PixelSize) throws(FaceCamError) -> [PixelRect] {
        let parameters = detector.parameters
        let shrink = max(1, Double(upright.width) / Double(settings.detectWidth))
        let candidates = try detector.search(region: nil, shrink: shrink, minSize: parameters.minSize, maxSize: parameters.maxSize)
        guard shrink > 1 else { return candidates }
        var confirmed: [PixelRect] = []
        for candidate in candidates {
            if let face = try refine(candidate) { confirmed.append(face) }
        }
        return confirmed
    }

    /// Searches around `box`, at full resolution and at 0.8 to 1.25 times its
    /// size: the hit overlapping it most, or nil.
    private func refine(_ box: PixelRect) throws(FaceCamError) -> PixelRect? {
        let parameters = detector.parameters
        let margin = max(box.width, box.height) / 2
        let region = PixelRect(x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin)
        let smallest = PixelSize(
            width: max(parameters.minSize.width, box.width * 4 / 5), height: max(parameters.minSize.height, box.height * 4 / 5))
        var largest = PixelSize(width: box.width * 5 / 4 + 1, height: box.height * 5 / 4 + 1)
        if let limit = parameters.maxSize {
            largest = PixelSize(width: min(largest.width, limit.width), height: min(largest.height, limit.height))
        }
        guard largest.width >= smallest.width, largest.height >= smallest.height else { return nil }
        let hits = try detector.search(region: region, shrink: 1, minSize: smallest, maxSize: largest)
        return hits.max { $0.overlap(with: box) < $1.overlap(with: box) }.flatMap { $0.overlap(with: box) > 0 ? $0 : nil }
    }

    /// Two known faces that converged on one face count once.
    private func withoutDuplicates(_ boxes: [PixelRect]) -> [PixelRect] {
        var kept: [PixelRect] = []
        for box in boxes where !kept.contains(where: { $0.overlap(with: box) > 0.5 }) {
            kept.append(box)
        }
        return kept
    }
}

extension PixelRect {
    /// Intersection over union: 0 for disjoint rects, 1 for equal ones.
    public func overlap(with other: PixelRect) -> Double {
        let width = min(x + self.width, other.x + other.width) - max(x, other.x)
        let height = min(y + self.height, other.y + other.height) - max(y, other.y)
        guard width > 0, height > 0 else { return 0 }
        let intersection = Double(width * height)
        return intersection / (Double(self.width * self.height + other.width * other.height) - intersection)
    }
}
