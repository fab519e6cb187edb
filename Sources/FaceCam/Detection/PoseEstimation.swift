#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// Adds each face's head pose (`Face.pose`, `Face.previewPose`) to what a detector finds; faces
/// without landmarks (Haar's), or whose landmarks no head pose fits, get none. Works with any
/// detector that gives landmarks.
///
/// A face model's landmarks lean towards an upright face, so the roll they give directly falls
/// short of a turned face's. The face is therefore cut out again, turned upright by the roll
/// estimated so far, and searched by YuNet, whose landmarks there give what is left of the roll;
/// until what is left is under `settledRoll`, at most `rounds` times. Yaw and pitch come from the
/// last search's landmarks (`cfd_head_pose`). Each round costs one YuNet search of `cropSide`
/// pixels square per face.
public final class PoseEstimation: FrameFaceDetector {
    public let detector: any FrameFaceDetector
    /// The side of the square cut around a face for each round, in pixels.
    public static let cropSide = 192
    /// The cut spans this many times the face box's larger side: the face fills half of it, about
    /// 96 pixels, where YuNet's landmarks are steadiest.
    public static let cropSpan = 2.0
    public static let rounds = 4
    /// The roll a search may still find in a face turned upright without another round, in degrees.
    public static let settledRoll = 0.3
    /// The searches in the cut-outs keep faces scoring this or more: the face is known to be there.
    static let scoreThreshold = 0.5

    private let searcher: FaceModelSearcher

    /// `model` is a YuNet model, which makes the searches in the cut-outs on `engine`.
    public init(_ detector: any FrameFaceDetector, model: FaceModelFile, engine: EngineSettings = EngineSettings()) throws(FaceCamError) {
        precondition(model.kind == .yunet, "the pose's searches are YuNet's")
        self.detector = detector
        searcher = try FaceModelSearcher(model, parameters: ModelParameters(scoreThreshold: Self.scoreThreshold), engine: engine)
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        var faces = try detector.detect(in: frame, geometry: geometry)
        for index in faces.indices {
            guard let landmarks = faces[index].landmarks,
                let pose = try estimatePose(landmarks: landmarks, box: faces[index].box, in: frame, geometry: geometry)
            else { continue }
            faces[index].pose = pose
            faces[index].previewPose = pose.mapped(by: geometry.uprightToPreview)
        }
        return faces
    }

    public func beginSource() { detector.beginSource() }

    /// The pose, in the upright picture (`PreviewGeometry.bufferToUpright`: not mirrored, not scaled),
    /// of the face with `landmarks` and `box` in `frame`'s buffer; nil when no head pose fits its
    /// landmarks (they coincide, or put the face behind the camera).
    func estimatePose(landmarks: FaceLandmarks, box: PixelRect, in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError)
        -> FacePose?
    {
        let upright = landmarks.applying(geometry.bufferToUpright)
        let uprightToBuffer = geometry.bufferToUpright.inverted()!
        var roll = upright.roll
        let side = Double(Self.cropSide)
        let scale = side / (Self.cropSpan * Double(max(box.width, box.height, 1)))
        let centre = upright.centre
        // The landmarks yaw and pitch are read from, and the map from the upright picture to their image.
        var seen = (landmarks: upright, fromUpright: AffineTransform.identity)
        for _ in 0..<Self.rounds {
            let toCrop = AffineTransform.translation(x: -centre.x, y: -centre.y)
                .followed(by: .rotation(degrees: -roll))
                .followed(by: .scale(x: scale, y: scale))
                .followed(by: .translation(x: side / 2, y: side / 2))
            let crop = try frame.warped(
                to: PixelSize(width: Self.cropSide, height: Self.cropSide),
                sampling: toCrop.inverted()!.followed(by: uprightToBuffer).onPixelIndices)
            guard let found = try faceNearestTheCentre(of: crop) else { break }
            roll += found.roll
            seen = (found, toCrop)
            if abs(found.roll) < Self.settledRoll { break }
        }
        // The camera: focal length the picture's larger side (a normal lens), centred on it, as the
        // landmarks' image scales it.
        let size = geometry.uprightSize
        let focal = Double(max(size.width, size.height)) * hypot(seen.fromUpright.a, seen.fromUpright.b)
        let principal = seen.fromUpright.apply(Point(x: Double(size.width) / 2, y: Double(size.height) / 2))
        let points = seen.landmarks.points.flatMap { [$0.x, $0.y] }
        var (yaw, pitch) = (0.0, 0.0)
        var error = cfd_error()
        guard cfd_head_pose(points, focal, principal.x, principal.y, &yaw, &pitch, &error) == CFD_OK else { return nil }
        // A turn of more than half a circle is the same turn the other way.
        let wrapped = roll.truncatingRemainder(dividingBy: 360)
        return FacePose(roll: wrapped > 180 ? wrapped - 360 : wrapped <= -180 ? wrapped + 360 : wrapped, yaw: yaw, pitch: pitch)
    }

    /// The landmarks of the face YuNet finds nearest the cut-out's centre (best score first, a face
    /// off the centre by a quarter of the cut-out or more being a neighbour), or nil.
    private func faceNearestTheCentre(of crop: Frame) throws(FaceCamError) -> FaceLandmarks? {
        // A frame of its own, whole and upright: a geometry that cannot fail.
        try searcher.prepare(crop, geometry: try! PreviewGeometry(frameSize: crop.size))
        let half = Double(Self.cropSide) / 2
        let found = try searcher.search(PixelRect(x: 0, y: 0, width: crop.width, height: crop.height), at: crop.size)
            .filter { hypot($0.box.midX - half, $0.box.midY - half) < half / 2 }
        return found.max { $0.score < $1.score }?.landmarks
    }
}
