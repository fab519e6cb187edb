/// How fast mode trades exactness for speed.
public struct FastSettings: Hashable, Sendable {
    /// Full searches run on the frame shrunk to this width (never enlarged).
    public var detectWidth: Int
    /// Between full searches, only the regions around known faces are searched;
    /// a full search comes at least every this many frames, and whenever a known face is lost.
    public var fullSearchEvery: Int
    /// Run full searches on a queue of their own, so that following faces
    /// never waits for them (live capture); their faces join a frame or two
    /// later. Off, results depend only on the frames (video files).
    public var searchInBackground: Bool

    public init(detectWidth: Int = 640, fullSearchEvery: Int = 5, searchInBackground: Bool = false) {
        self.detectWidth = detectWidth
        self.fullSearchEvery = fullSearchEvery
        self.searchInBackground = searchInBackground
    }
}

import Dispatch
import Foundation
import Synchronization

/// Fast mode. Each face of the last frame is followed by searching its
/// surroundings as a search of the whole frame sees them (`refine`), so a
/// followed face has exact mode's box. Between full searches,
/// the regions that changed since the last frame where no face was or is are
/// searched too (within a budget, and not when the camera itself moved), so a
/// face that appears is found in the frame it appears in. A full search runs on
/// a shrunk frame when a face was lost, when none is known, or every
/// `fullSearchEvery` frames; each face it finds is confirmed and sharpened
/// the same way, and joins the faces still followed. Frames must come in
/// order: it remembers the last frame's faces. Not thread-safe: give each thread its own.
public final class FastFaceDetector: FrameFaceDetector {
    public let detector: FaceDetector
    public let settings: FastSettings
    /// Full searches in the background (`settings.searchInBackground`).
    private let background: BackgroundSearch?
    /// Faces of the last frame, in upright pixels.
    private var known: [PixelRect] = []
    private var framesSinceFullSearch = 0
    /// Faces followed until a recent frame, with the frames since: sought again for a few frames,
    /// since a face near the cascade's threshold comes and goes from frame to frame.
    private var missing: [(box: PixelRect, frames: Int)] = []
    /// How many frames a missing face is sought again.
    static let missingFrames = 4
    /// Grey levels an 8x8 cell's mean must change by to count as motion.
    static let motionThreshold = 40
    /// The searches of changed regions in one frame cost at most this share of a full search at the
    /// smallest face size.
    static let motionBudget = 0.3
    /// More changed regions than this where no face is means the camera moved (a pan changes
    /// texture everywhere; a face that appears is one region): they are left to the full searches.
    static let cameraMotionRegions = 8

    public init(detector: FaceDetector, settings: FastSettings = FastSettings()) throws(FaceCamError) {
        self.detector = detector
        self.settings = settings
        // Every frame is compared with the last (`searchChanges`).
        detector.watchChanges()
        background = settings.searchInBackground
            ? BackgroundSearch(searcher: try FaceDetector(cascade: detector.cascade, parameters: detector.parameters), settings: settings)
            : nil
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        try detector.prepare(frame, geometry: geometry)
        var found: [PixelRect] = []
        var lost = false
        var missingNow: [(box: PixelRect, frames: Int)] = []
        for box in known {
            let hits = try refine(box)
            if hits.isEmpty { lost = true; missingNow.append((box, 1)) }
            found += hits
        }
        for (box, frames) in missing {
            let hits = try refine(box)
            if !hits.isEmpty {
                found += hits
            } else if frames < Self.missingFrames {
                missingNow.append((box, frames + 1))
            }
        }
        let due = lost || known.isEmpty || framesSinceFullSearch + 1 >= settings.fullSearchEvery
        if !due {
            // A face that appeared since the last frame changed the picture where no followed face is.
            for candidate in try searchChanges(explainedBy: known + found + missing.map(\.box), upright: geometry.uprightSize)
            where !found.contains(where: { $0.overlap(with: candidate) > 0.3 }) {
                found.append(candidate)
            }
        }
        if let background {
            // Faces a background search found (in an earlier frame) are sought again here.
            for candidate in background.takeFinished() {
                found += try refine(candidate)
            }
            framesSinceFullSearch += 1
            if due, background.start(in: frame, geometry: geometry) { framesSinceFullSearch = 0 }
        } else if due {
            // Faces still followed stay: a shrunk search can miss what following keeps.
            let search = try Self.fullSearch(upright: geometry.uprightSize, with: detector, settings: settings)
            for candidate in search.faces {
                if !search.shrunk {
                    found.append(candidate)
                } else {
                    found += try refine(candidate)
                }
            }
            framesSinceFullSearch = 0
        } else {
            framesSinceFullSearch += 1
        }
        known = withoutDuplicates(found)
        missing = missingNow.filter { entry in !known.contains { $0.overlap(with: entry.box) > 0.3 } }
        return detector.faces(fromUpright: known, geometry: geometry)
    }

    /// Forgets the faces followed and starts with a full search. A background
    /// search still running may yet hand in candidates; each is confirmed in the new frame first.
    public func beginSource() {
        known = []
        missing = []
        framesSinceFullSearch = 0
        background?.forgetFinished()
    }

    /// A full search of `detector`'s prepared frame, shrunk to `settings.detectWidth`:
    /// faces in upright pixels. Found in a shrunk frame, they are candidates for `refine` to confirm.
    fileprivate static func fullSearch(
        upright: PixelSize, with detector: FaceDetector, settings: FastSettings
    ) throws(FaceCamError) -> (faces: [PixelRect], shrunk: Bool) {
        let parameters = detector.parameters
        let shrink = max(1, Double(upright.width) / Double(settings.detectWidth))
        let faces = try detector.search(region: nil, shrink: shrink, minSize: parameters.minSize, maxSize: parameters.maxSize)
        return (faces, shrink > 1)
    }

    /// Searches, at full resolution, the regions that changed since the last frame where no face
    /// was or is (`faces`: the last frame's and this one's), the largest first, within
    /// `motionBudget`; none when the camera moved (`cameraMotionRegions`).
    private func searchChanges(explainedBy faces: [PixelRect], upright: PixelSize) throws(FaceCamError) -> [PixelRect] {
        // A face that moved changed the cells it left and those it covers now, and their neighbours.
        let surroundings = faces.map { box in box.expanded(by: max(16, max(box.width, box.height) / 4)) }
        let unexplained = try detector.changedRegions(threshold: Self.motionThreshold, ignoring: surroundings)
        guard unexplained.count <= Self.cameraMotionRegions else { return [] }
        let parameters = detector.parameters
        var found: [PixelRect] = []
        // A search costs about its area over the square of the smallest face it looks for; the budget
        // is a share of a search of the whole frame at the cascade's smallest size.
        let smallest = max(1, min(parameters.minSize.width, parameters.minSize.height))
        var budget = Self.motionBudget * Double(upright.width * upright.height) / Double(smallest * smallest)
        // The largest first: a face that popped in changed its whole box, while what a moving face
        // leaves beyond its surroundings is slivers.
        for region in unexplained.sorted(by: { $0.width * $0.height > $1.width * $1.height }) {
            // A face that popped in changed about its own box, or, beside a followed face, a sliver of
            // it: the margin lets the cascade's windows fit around the whole face, which is at least a
            // quarter of the region's side.
            let side = max(region.width, region.height)
            let margin = max(16, min(48, side / 2))
            let searched = PixelRect(
                x: max(0, region.x - margin), y: max(0, region.y - margin),
                width: min(upright.width, region.x + region.width + margin) - max(0, region.x - margin),
                height: min(upright.height, region.y + region.height + margin) - max(0, region.y - margin))
            let minimum = PixelSize(width: max(parameters.minSize.width, side / 4), height: max(parameters.minSize.height, side / 4))
            var largest = PixelSize(width: min(searched.width, searched.height), height: min(searched.width, searched.height))
            if let limit = parameters.maxSize {
                largest = PixelSize(width: min(largest.width, limit.width), height: min(largest.height, limit.height))
            }
            guard largest.width >= minimum.width, largest.height >= minimum.height else { continue }
            let cost = Double(searched.width * searched.height) / Double(minimum.width * minimum.height)
            guard cost <= budget else { continue }
            budget -= cost
            found += try detector.search(region: searched, shrink: 1, minSize: minimum, maxSize: largest)
        }
        return found
    }

    /// Searches around `box` (half its size on every side) for faces of a third to twice its size,
    /// seeing there exactly what a search of the whole frame sees (`searchInPlace`): the face
    /// overlapping `box` most, then any others found around it; empty when none overlaps `box`.
    /// Down to half: OpenCV groups a face's detections over about half to twice its size, so a
    /// narrower search would give it another box, or lose it where exact mode keeps it. Down to a
    /// third: exact mode finds small boxes at a face's edge (of a third to half its size) that come
    /// and go as the face moves, and only a search around the face sees them between full searches.
    private func refine(_ box: PixelRect) throws(FaceCamError) -> [PixelRect] {
        let parameters = detector.parameters
        let region = box.expanded(by: max(box.width, box.height) / 2)
        let smallest = PixelSize(width: max(parameters.minSize.width, box.width / 3), height: max(parameters.minSize.height, box.height / 3))
        var largest = PixelSize(width: box.width * 2, height: box.height * 2)
        if let limit = parameters.maxSize {
            largest = PixelSize(width: min(largest.width, limit.width), height: min(largest.height, limit.height))
        }
        guard largest.width >= smallest.width, largest.height >= smallest.height else { return [] }
        var hits = try detector.searchInPlace(region: region, minSize: smallest, maxSize: largest)
        guard let best = hits.indices.max(by: { hits[$0].overlap(with: box) < hits[$1].overlap(with: box) }),
              hits[best].overlap(with: box) > 0 else { return [] }
        hits.swapAt(0, best)
        return hits
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

/// Full searches on a queue of their own, one at a time, with a cascade of their own, whose candidates the next frames
/// take. The cascade is in a `Mutex` that only that queue takes, so the detecting thread never waits for a search.
private final class BackgroundSearch: Sendable {
    private let searcher: Mutex<FaceDetector>
    private let settings: FastSettings
    private let queue = DispatchQueue(label: "facecam.full-search")
    /// Whether a search runs, and the candidates of the last one finished.
    private let state = Mutex<(running: Bool, finished: [PixelRect]?)>((false, nil))

    init(searcher: consuming sending FaceDetector, settings: FastSettings) {
        self.searcher = Mutex(searcher)
        self.settings = settings
    }

    /// Starts a full search of `frame` unless one is running; true when it started.
    func start(in frame: Frame, geometry: PreviewGeometry) -> Bool {
        let claimed = state.withLock { state in
            if state.running { return false }
            state.running = true
            return true
        }
        guard claimed else { return false }
        queue.async { [self] in
            let candidates = searcher.withLock { searcher in
                try? { () throws(FaceCamError) -> [PixelRect] in
                    try searcher.prepare(frame, geometry: geometry)
                    return try FastFaceDetector.fullSearch(upright: geometry.uprightSize, with: searcher, settings: settings).faces
                }()
            }
            state.withLock { $0 = (running: false, finished: candidates) }
        }
        return true
    }

    /// The candidates of the search finished since the last call.
    func takeFinished() -> [PixelRect] {
        state.withLock { state in
            defer { state.finished = nil }
            return state.finished ?? []
        }
    }

    /// Drops what a search finished: a new source starts.
    func forgetFinished() {
        state.withLock { $0.finished = nil }
    }
}
