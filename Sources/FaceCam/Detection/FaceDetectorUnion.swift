/// Two detectors on each frame: every face the first finds, and the faces of the second that overlap
/// none of the first's by more than `overlap` (IoU). For redaction, where a missed face is a leak and
/// two models miss different faces: CenterFace finds more small faces, YuNet some close-ups CenterFace scores low.
///
/// Not thread-safe: give each thread its own.
public final class FaceDetectorUnion: FrameFaceDetector {
    public let first: any FrameFaceDetector
    public let second: any FrameFaceDetector
    public let overlap: Double

    public init(_ first: any FrameFaceDetector, adding second: any FrameFaceDetector, unlessOverlapping overlap: Double) {
        self.first = first
        self.second = second
        self.overlap = overlap
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        let found = try first.detect(in: frame, geometry: geometry)
        let added = try second.detect(in: frame, geometry: geometry).filter { face in
            !found.contains { $0.box.overlap(with: face.box) > overlap }
        }
        return added.isEmpty ? found : (found + added).inReportingOrder()
    }

    public func beginSource() {
        first.beginSource()
        second.beginSource()
    }
}
