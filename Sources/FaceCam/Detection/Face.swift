/// A face found in a frame.
public struct Face: Hashable, Sendable {
    /// Where the face is in the frame's buffer, in whole pixels.
    public var box: PixelRect
    /// Where the face appears in the preview (see `PreviewGeometry`).
    public var preview: Rect
    /// The track the face belongs to, from `FaceTracker`; nil when not tracked.
    public var id: Int?
    /// The detector's confidence, 0...1 (YuNet); nil for cascades, which give none.
    public var score: Double?
    /// Eyes, nose and mouth corners in buffer coordinates (YuNet); nil for cascades.
    public var landmarks: FaceLandmarks?
    /// The landmarks in preview coordinates, mapped as `preview` is.
    public var previewLandmarks: FaceLandmarks?

    public init(
        box: PixelRect, preview: Rect, id: Int? = nil, score: Double? = nil,
        landmarks: FaceLandmarks? = nil, previewLandmarks: FaceLandmarks? = nil
    ) {
        self.box = box
        self.preview = preview
        self.id = id
        self.score = score
        self.landmarks = landmarks
        self.previewLandmarks = previewLandmarks
    }
}

extension Array where Element == Face {
    /// The order facecam reports faces in: by box y, then x, then width, then height.
    func inReportingOrder() -> [Face] {
        sorted { ($0.box.y, $0.box.x, $0.box.width, $0.box.height) < ($1.box.y, $1.box.x, $1.box.width, $1.box.height) }
    }
}

/// Five points of a face, in YuNet's order. "Right" and "left" are the
/// person's own: the right eye appears on the left of an unmirrored image.
public struct FaceLandmarks: Hashable, Sendable {
    public var rightEye: Point
    public var leftEye: Point
    public var noseTip: Point
    public var rightMouthCorner: Point
    public var leftMouthCorner: Point

    /// The five points in YuNet's order: right eye, left eye, nose tip, right mouth corner, left mouth corner.
    public var points: [Point] { [rightEye, leftEye, noseTip, rightMouthCorner, leftMouthCorner] }

    /// Five points in YuNet's order, or nil for any other count.
    public init?(_ points: [Point]) {
        guard points.count == 5 else { return nil }
        (rightEye, leftEye, noseTip, rightMouthCorner, leftMouthCorner) = (points[0], points[1], points[2], points[3], points[4])
    }

    /// Every point mapped through `transform`.
    public func applying(_ transform: AffineTransform) -> FaceLandmarks {
        FaceLandmarks(points.map(transform.apply))!
    }
}
