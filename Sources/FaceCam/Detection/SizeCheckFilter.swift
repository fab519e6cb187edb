/// `SizeCheck` on any detector's faces (`--size-check`): redaction's defaults, where each false face is a patch
/// of the picture hidden.
public final class SizeCheckFilter: FrameFaceDetector {
    public let detector: any FrameFaceDetector
    public let check: SizeCheck

    public init(_ detector: any FrameFaceDetector, check: SizeCheck) {
        self.detector = detector
        self.check = check
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        check.kept(try detector.detect(in: frame, geometry: geometry))
    }

    public func beginSource() { detector.beginSource() }
}
