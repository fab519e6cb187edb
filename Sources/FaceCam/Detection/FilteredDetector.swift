/// What a `FilteredDetector` makes of the faces a detector found in one frame: some dropped, the rest in their order,
/// labelled with what the filter knows.
public protocol FaceFilter: Sendable {
    func kept(_ faces: [Face]) -> [Face]
}

/// Any detector's faces through a `FaceFilter` (`SizeCheck`, `ZoneFilter`, `FaceCountLimit`); the search is the
/// detector's own.
public final class FilteredDetector<Filter: FaceFilter>: FrameFaceDetector {
    public let detector: any FrameFaceDetector
    public let filter: Filter

    public init(_ detector: any FrameFaceDetector, _ filter: Filter) {
        self.detector = detector
        self.filter = filter
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        filter.kept(try detector.detect(in: frame, geometry: geometry))
    }

    public func beginSource() { detector.beginSource() }
}

/// `--size-check`: redaction's defaults, where each false face is a patch of the picture hidden.
extension SizeCheck: FaceFilter {}
