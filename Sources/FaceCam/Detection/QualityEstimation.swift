#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// Adds how usable each face is (`Face.quality`, 0...1) to what a pose-estimating detector finds:
/// the geometric mean of four terms, each 0...1, so that a face weak in any one is weak overall.
/// - sharpness: v / (v + `sharpnessHalf`), v the variance of the Laplacian of the face's aligned
///   112x112 crop (`FaceCropStyle.aligned`) in grey;
/// - size: the box's smaller side over 112 (the aligned crop's side), at most 1;
/// - frontal: (cos yaw x cos pitch)², 0 past a quarter turn;
/// - score: the detector's.
/// Faces without pose (no landmarks) get none.
public final class QualityEstimation: FrameFaceDetector {
    public let detector: PoseEstimation
    /// The Laplacian variance that makes the sharpness term 1/2: sharp portraits measure 500 to 5000,
    /// the same blurred by a Gaussian of 2 pixels 10 to 400.
    public static let sharpnessHalf = 300.0
    static let alignedSide = FaceCropStyle.defaultAlignedSize

    public init(_ detector: PoseEstimation) {
        self.detector = detector
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        var faces = try detector.detect(in: frame, geometry: geometry)
        for index in faces.indices {
            guard let pose = faces[index].pose,
                let crop = try FaceCropStyle.aligned(size: Self.alignedSide).crop(faces[index], from: frame, geometry: geometry)
            else { continue }
            faces[index].quality = Self.quality(
                sharpness: try crop.laplacianVariance(), box: faces[index].box, pose: pose, score: faces[index].score ?? 1)
        }
        return faces
    }

    public func beginSource() { detector.beginSource() }

    /// The four terms' geometric mean.
    static func quality(sharpness variance: Double, box: PixelRect, pose: FacePose, score: Double) -> Double {
        let sharpness = variance / (variance + sharpnessHalf)
        let size = min(1, Double(min(box.width, box.height)) / Double(alignedSide))
        let facing = max(0, cos(pose.yaw * .pi / 180)) * max(0, cos(pose.pitch * .pi / 180))
        let terms = [sharpness, size, facing * facing, min(max(score, 0), 1)]
        return pow(terms.reduce(1, *), 1 / Double(terms.count))
    }
}

extension Frame {
    /// The variance of the Laplacian of the frame in grey (`cfd_sharpness`): higher is sharper.
    func laplacianVariance() throws(FaceCamError) -> Double {
        var variance = 0.0
        var error = cfd_error()
        let status = withImageView { cfd_sharpness(&$0, &variance, &error) }
        guard status == CFD_OK else { throw .openCV(error.text) }
        return variance
    }
}
