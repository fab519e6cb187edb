/// Face heights reported apart: a band counts the labelled faces whose height is in its range,
/// and the unmatched detections whose height is; the rest are ignored, as COCO's area ranges do.
public struct HeightBand: Sendable, Equatable {
    public var name: String
    public var range: Range<Double>

    public init(name: String, range: Range<Double>) {
        self.name = name
        self.range = range
    }

    public static let all = HeightBand(name: "all", range: 0..<Double.infinity)

    /// All faces, then under 16 pixels tall, 16 to 32, 32 to 64, and 64 and taller.
    public static let standard: [HeightBand] = [
        .all,
        HeightBand(name: "under 16 px", range: 0..<16),
        HeightBand(name: "16-32 px", range: 16..<32),
        HeightBand(name: "32-64 px", range: 32..<64),
        HeightBand(name: "64 px and taller", range: 64..<Double.infinity),
    ]
}

/// One point of a precision-recall curve: what the detections scoring `score` or more reach.
public struct PrecisionRecallPoint: Sendable, Equatable {
    public var score: Double
    public var recall: Double
    public var precision: Double
}

/// How a run did on the faces of one height band.
public struct BandScore: Sendable {
    public var band: HeightBand
    /// The labelled faces that count (not ignored, in the band).
    public var faces: Int
    /// The area under the precision-recall curve as COCO computes it (101-point interpolation, as
    /// pycocotools); NaN when the band has no face.
    public var averagePrecision: Double
    /// A point for each counted detection, best score first.
    public var curve: [PrecisionRecallPoint]
    /// At the operating score: detections that found a face, and those that found none.
    public var hits: Int
    public var falsePositives: Int
    public var recall: Double
    /// NaN when no detection counts.
    public var precision: Double
    public var falsePositivesPerImage: Double
}

/// Detections scored against a ground truth: in each image, detections
/// best score first each take the unused labelled face they overlap most, when the IoU is 0.5 or
/// more; a match with an ignored face is neither a hit nor a false positive.
public struct Evaluation: Sendable {
    /// The ground truth's images, all of which were scored.
    public var images: Int
    /// The detections counted at the operating point score this or more (nil: all of them).
    public var operatingScore: Double?
    public var bands: [BandScore]

    public static let matchingOverlap = 0.5

    /// Pairs the runs' images with the ground truth's by name (`ImagePairing`) and scores them.
    public init(
        detections: FaceList, truth: FaceList, operatingScore: Double? = nil, bands: [HeightBand] = HeightBand.standard
    ) throws(EvaluationInputError) {
        let paired = try ImagePairing(truth: truth).detectionsByImage(detections)
        // Each detection with the labelled face it matched, if any.
        var matches: [[(face: ListedFace, match: ListedFace?)]] = []
        for (index, image) in truth.images.enumerated() {
            matches.append(Self.match(paired[index], to: image.faces))
        }
        self.images = truth.images.count
        self.operatingScore = operatingScore
        self.bands = bands.map { band in
            var outcomes: [(score: Double, hit: Bool)] = []
            for image in matches {
                for (face, match) in image {
                    if let match {
                        if !match.ignored, band.range.contains(match.box.height) { outcomes.append((face.score, true)) }
                    } else if band.range.contains(face.box.height) {
                        outcomes.append((face.score, false))
                    }
                }
            }
            let faces = truth.images.reduce(0) { $0 + $1.faces.filter { !$0.ignored && band.range.contains($0.box.height) }.count }
            return Self.score(outcomes, faces: faces, images: truth.images.count, operatingScore: operatingScore, band: band)
        }
    }

    /// WIDER's matching in one image: each detection, best score first, with the face it took.
    static func match(_ detections: [ListedFace], to faces: [ListedFace]) -> [(face: ListedFace, match: ListedFace?)] {
        var used = [Bool](repeating: false, count: faces.count)
        return detections.sortedByScore().map { detection in
            var best = matchingOverlap
            var chosen: Int?
            for (index, face) in faces.enumerated() where !used[index] {
                let overlap = detection.box.overlap(with: face.box)
                if overlap >= best {
                    best = overlap
                    chosen = index
                }
            }
            guard let chosen else { return (detection, nil) }
            used[chosen] = true
            return (detection, faces[chosen])
        }
    }

    static func score(
        _ outcomes: [(score: Double, hit: Bool)], faces: Int, images: Int, operatingScore: Double?, band: HeightBand
    ) -> BandScore {
        let ordered = outcomes.enumerated().sorted { ($0.element.score, $1.offset) > ($1.element.score, $0.offset) }.map(\.element)
        var curve: [PrecisionRecallPoint] = []
        var hits = 0
        for (index, outcome) in ordered.enumerated() {
            if outcome.hit { hits += 1 }
            curve.append(PrecisionRecallPoint(
                score: outcome.score, recall: faces > 0 ? Double(hits) / Double(faces) : 0,
                precision: Double(hits) / Double(index + 1)))
        }
        let counted = ordered.filter { operatingScore == nil || $0.score >= operatingScore! }
        let found = counted.filter(\.hit).count
        return BandScore(
            band: band, faces: faces, averagePrecision: faces > 0 ? averagePrecision(curve) : .nan, curve: curve,
            hits: found, falsePositives: counted.count - found,
            recall: faces > 0 ? Double(found) / Double(faces) : .nan,
            precision: counted.isEmpty ? .nan : Double(found) / Double(counted.count),
            falsePositivesPerImage: images > 0 ? Double(counted.count - found) / Double(images) : 0)
    }

    /// COCO's interpolated AP: precision made monotone from the right, read at the first point
    /// reaching each recall 0, 0.01, ... 1 (0 past the curve's end), averaged over the 101.
    static func averagePrecision(_ curve: [PrecisionRecallPoint]) -> Double {
        guard !curve.isEmpty else { return 0 }
        var precision = curve.map(\.precision)
        for index in stride(from: precision.count - 2, through: 0, by: -1) {
            precision[index] = max(precision[index], precision[index + 1])
        }
        var sum = 0.0
        var index = 0
        for step in 0...100 {
            // As numpy's linspace(0, 1, 101) computes its values, so that ties fall the same way.
            let recall = Double(step) * 0.01
            while index < curve.count, curve[index].recall < recall { index += 1 }
            if index < curve.count { sum += precision[index] }
        }
        return sum / 101
    }
}

extension Array where Element == ListedFace {
    /// Best score first; equal scores keep their order.
    func sortedByScore() -> [ListedFace] {
        enumerated().sorted { ($0.element.score, $1.offset) > ($1.element.score, $0.offset) }.map(\.element)
    }
}

/// Finds a run's images among the ground truth's by name: one name's path components must end the
/// other's, file extensions aside (WIDER's detection files name images without them), so a
/// detection named by its full path finds the ground truth's relative name, and the reverse. An
/// exact name wins; a name that ends several is ambiguous. A video frame's `#N` stays part of its name.
/// A ground truth that names an image twice is refused.
struct ImagePairing {
    private let truth: FaceList
    private var byName: [String: Int] = [:]
    /// Each ground-truth name's components.
    private var parts: [[String]] = []
    /// Each ground-truth name's components, by key, to the images named so.
    private var byComponents: [Run: [Int]] = [:]
    /// Every trailing run of each ground-truth name's components, by key, to the images it ends.
    private var bySuffix: [Run: [Int]] = [:]

    /// A trailing run of components by its length and a hash chained from the last component, so
    /// that all of a name's runs cost one pass over it rather than the square of its length.
    /// Runs with equal keys are compared whole before they pair.
    private struct Run: Hashable {
        var hash: Int
        var count: Int
    }

    init(truth: FaceList) throws(EvaluationInputError) {
        self.truth = truth
        for (index, image) in truth.images.enumerated() {
            if let earlier = byName.updateValue(index, forKey: image.name) {
                throw EvaluationInputError(
                    path: truth.path, reason: "names \(image.name) twice, as its images \(earlier + 1) and \(index + 1): give each image once")
            }
            let parts = Self.components(image.name)
            let runs = Self.runs(of: parts)
            self.parts.append(parts)
            if let whole = runs.first { byComponents[whole, default: []].append(index) }
            for run in runs { bySuffix[run, default: []].append(index) }
        }
    }

    /// The keys of the trailing runs of `parts`, the one from `start` at `start`.
    private static func runs(of parts: [String]) -> [Run] {
        var runs = [Run](repeating: Run(hash: 0, count: 0), count: parts.count)
        var hash = 0
        for start in parts.indices.reversed() {
            var hasher = Hasher()
            hasher.combine(parts[start])
            hasher.combine(hash)
            hash = hasher.finalize()
            runs[start] = Run(hash: hash, count: parts.count - start)
        }
        return runs
    }

    static func components(_ name: String) -> [String] {
        // "clip.mp4#12": the frame stays, the extension goes.
        var frame = ""
        var path = Substring(name)
        if let hash = name.lastIndex(of: "#"), !name[name.index(after: hash)...].isEmpty,
           name[name.index(after: hash)...].allSatisfy(\.isNumber) {
            frame = String(name[hash...])
            path = name[..<hash]
        }
        var parts = path.split(separator: "/").map(String.init).filter { $0 != "." }
        if let last = parts.last, let dot = last.lastIndex(of: "."), dot != last.startIndex {
            parts[parts.count - 1] = String(last[..<dot])
        }
        if !frame.isEmpty, !parts.isEmpty { parts[parts.count - 1] += frame }
        return parts
    }

    /// The ground truth's image for `name`.
    func image(named name: String) -> Result<Int, EvaluationInputError.Pairing> {
        if let exact = byName[name] { return .success(exact) }
        let parts = Self.components(name)
        guard !parts.isEmpty else { return .failure(.unknown) }
        let runs = Self.runs(of: parts)
        // A ground-truth name that ends this one, the longest first; then one that this name ends.
        let endingThis = parts.indices.lazy.map { start in
            (byComponents[runs[start]] ?? []).filter { self.parts[$0][...] == parts[start...] }
        }.first { !$0.isEmpty }
        let candidates = endingThis ?? (bySuffix[runs[0]] ?? []).filter { self.parts[$0].suffix(parts.count) == parts[...] }
        guard !candidates.isEmpty else { return .failure(.unknown) }
        return candidates.count == 1 ? .success(candidates[0]) : .failure(.ambiguous)
    }

    /// The detections of each ground-truth image, in its order; refuses images the ground truth
    /// does not have, and a run that lists every image it saw but not all of the ground truth's.
    func detectionsByImage(_ detections: FaceList) throws(EvaluationInputError) -> [[ListedFace]] {
        var faces = [[ListedFace]](repeating: [], count: truth.images.count)
        var seen = [Bool](repeating: false, count: truth.images.count)
        for image in detections.images {
            switch self.image(named: image.name) {
            case .success(let index):
                guard !seen[index] else {
                    throw EvaluationInputError(
                        path: detections.path,
                        reason: "\(image.name) is the ground truth's \(truth.images[index].name), which an earlier record "
                            + "already gave: give each image once")
                }
                faces[index] = image.faces
                seen[index] = true
            case .failure(let problem):
                let what = problem == .ambiguous ? "names several images of" : "is not an image of"
                throw EvaluationInputError(
                    path: detections.path,
                    reason: "\(image.name) \(what) the ground truth \(truth.path): check that both files describe the same images")
            }
        }
        if detections.listsEveryImage, let first = seen.firstIndex(of: false) {
            let missing = seen.filter { !$0 }.count
            throw EvaluationInputError(
                path: detections.path,
                reason: "has no record of \(missing) of the ground truth's \(truth.images.count) images, the first: "
                    + "\(truth.images[first].name): run the detector on every image the ground truth names")
        }
        return faces
    }
}

extension EvaluationInputError {
    enum Pairing: Error {
        case unknown, ambiguous
    }
}
