#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    /// The head's pose in the upright picture, before mirroring (`PoseEstimation`); nil unless asked
    /// for, and for faces without landmarks.
    public var pose: FacePose?
    /// The pose as the preview shows the face (`FacePose.mapped(by:)`).
    public var previewPose: FacePose?
    /// How usable the face is, 0...1 (`QualityEstimation`); nil unless asked for, and for faces without landmarks.
    public var quality: Double?
    /// The names of the `--zone`s its centre in the preview lies in (`ZoneFilter`); nil without zones.
    public var zones: [String]?
    /// Who the face is, against a gallery of enrolled people (`--recognize`); nil unless asked for.
    public var identity: FaceIdentity?
    /// The face's own descriptor (dlib's 128 numbers, as computed), when it was described at its frame and
    /// they were asked for (`--descriptors`), or until its cluster is found (`--cluster`).
    public var descriptor: [Float]?
    /// The group of faces of one person it belongs to across the run (`--cluster`), from 1; nil unless asked for.
    public var cluster: Int?

    public init(
        box: PixelRect, preview: Rect, id: Int? = nil, score: Double? = nil,
        landmarks: FaceLandmarks? = nil, previewLandmarks: FaceLandmarks? = nil, pose: FacePose? = nil, previewPose: FacePose? = nil,
        quality: Double? = nil
    ) {
        self.box = box
        self.preview = preview
        self.id = id
        self.score = score
        self.landmarks = landmarks
        self.previewLandmarks = previewLandmarks
        self.pose = pose
        self.previewPose = previewPose
        self.quality = quality
    }
}

extension Array where Element == Face {
    /// The order facecam reports faces in: by box y, then x, then width, then height.
    package func inReportingOrder() -> [Face] {
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

    /// Where the five points of an upright face sit in the 112x112 crops face-recognition models
    /// (ArcFace, InsightFace's norm_crop) take, in OpenCV's pixel indices.
    public static let alignmentTemplate = FaceLandmarks([
        Point(x: 38.2946, y: 51.6963), Point(x: 73.5318, y: 51.5014), Point(x: 56.0252, y: 71.7366),
        Point(x: 41.5493, y: 92.3655), Point(x: 70.7299, y: 92.2041),
    ])!

    /// The face's turn in the image's plane, clockwise positive, in degrees: the turn of the
    /// least-squares similarity that takes `alignmentTemplate` onto these points (0 for an upright face).
    public var roll: Double {
        AffineTransform.similarity(from: Self.alignmentTemplate.points, to: points)?.rotationDegrees ?? 0
    }

    /// The mean of the five points.
    public var centre: Point {
        Point(x: points.map(\.x).reduce(0, +) / 5, y: points.map(\.y).reduce(0, +) / 5)
    }

    /// Every point mapped through `transform`.
    public func applying(_ transform: AffineTransform) -> FaceLandmarks {
        FaceLandmarks(points.map(transform.apply))!
    }
}

/// Which way a head is turned, in degrees.
public struct FacePose: Hashable, Sendable {
    /// In the image's plane: positive when the face is turned clockwise as the image is shown, 0 when
    /// its eyes are level (-180...180).
    public var roll: Double
    /// Positive when the nose points to the image's right (approximate).
    public var yaw: Double
    /// Positive when the nose points up (approximate).
    public var pitch: Double

    public init(roll: Double, yaw: Double, pitch: Double) {
        self.roll = roll
        self.yaw = yaw
        self.pitch = pitch
    }

    /// The pose as an image mapped by `transform` shows it: a turn adds to roll, a mirror flips the
    /// signs of roll and yaw. The roll follows the face's eye line through the map, so a preview
    /// stretched by `--gravity resize` turns it as the stretched picture does.
    public func mapped(by transform: AffineTransform) -> FacePose {
        let radians = roll * .pi / 180
        // The eye line's direction, from the person's right eye to their left; the map's linear part
        // carries it. A mirror puts the left eye first, so the line is then read the other way.
        let (dx, dy) = (cos(radians), sin(radians))
        let mirrors = transform.a * transform.d - transform.b * transform.c < 0
        let sign: Double = mirrors ? -1 : 1
        let mappedRoll = atan2(sign * (transform.b * dx + transform.d * dy), sign * (transform.a * dx + transform.c * dy)) * 180 / .pi
        return FacePose(roll: mappedRoll, yaw: mirrors ? -yaw : yaw, pitch: pitch)
    }
}

/// Who a face is: the enrolled person whose descriptor lies nearest, when within the tolerance.
public struct FaceIdentity: Hashable, Sendable {
    /// The person's name; nil for someone unknown (no enrolled descriptor within the tolerance).
    public var name: String?
    /// The distance to the nearest enrolled descriptor (between unit-length descriptors, 0 to 2); nil
    /// when the gallery is empty.
    public var distance: Double?

    public init(name: String?, distance: Double?) {
        self.name = name
        self.distance = distance
    }
}
