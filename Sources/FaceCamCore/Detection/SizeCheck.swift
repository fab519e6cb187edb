/// Drops the faint faces that are far taller than the confident faces at their height in the picture:
/// in a crowd, where faces at one height are of one size, the enlarged scales take legs, clothing and
/// furniture for faint faces several times that size, and masking them hides the picture, not a face.
/// Faces without a score (cascades') are neither faint nor confident: they are kept and set no size.
public struct SizeCheck: Hashable, Sendable {
    /// Faces scoring under this are checked.
    public var faintBelow: Double
    /// Faces scoring this or more give the size faces near them should have.
    public var confidentFrom: Double
    /// A faint face taller than this many times the median height of the confident faces near it is dropped.
    public var tallerThan: Double
    /// Near a faint face: a confident face whose centre lies at most this many of the faint face's
    /// heights above or below its centre (in the upright preview).
    public var within: Double

    public static let redaction = SizeCheck(faintBelow: 0.3, confidentFrom: 0.5, tallerThan: 4, within: 2)

    public init(faintBelow: Double, confidentFrom: Double, tallerThan: Double, within: Double) {
        self.faintBelow = faintBelow
        self.confidentFrom = confidentFrom
        self.tallerThan = tallerThan
        self.within = within
    }

    /// `faces` without the faint ones out of size with the confident ones near them, in their order.
    /// A faint face with no confident face near it is kept: nothing says what size it should have.
    public func kept(_ faces: [Face]) -> [Face] {
        let confident = faces.filter { face in face.score.map { $0 >= confidentFrom } ?? false }
            .map { (centre: $0.preview.centre.y, height: $0.preview.height) }
        guard !confident.isEmpty else { return faces }
        return faces.filter { face in
            guard let score = face.score, score < faintBelow else { return true }
            let centre = face.preview.centre.y, height = face.preview.height
            let near = confident.filter { abs($0.centre - centre) <= within * height }.map(\.height)
            guard let median = near.median else { return true }
            return height <= tallerThan * median
        }
    }
}

extension Array where Element == Double {
    /// The middle value, or the mean of the two middle values; nil when empty.
    fileprivate var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted(), middle = count / 2
        return count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}
