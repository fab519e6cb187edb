/// The user's geometry settings, from which each frame size gets its `PreviewGeometry`.
public struct GeometrySettings: Hashable, Sendable {
    /// The clean aperture; nil for the whole frame.
    public var aperture: PixelRect?
    public var orientation: Orientation
    public var mirrored: Bool
    /// The preview's size; nil for the upright aperture's size.
    public var previewSize: PixelSize?
    public var gravity: Gravity

    public init(
        aperture: PixelRect? = nil, orientation: Orientation = .up, mirrored: Bool = false,
        previewSize: PixelSize? = nil, gravity: Gravity = .aspect
    ) {
        self.aperture = aperture
        self.orientation = orientation
        self.mirrored = mirrored
        self.previewSize = previewSize
        self.gravity = gravity
    }

    public func geometry(for frameSize: PixelSize) throws(GeometryError) -> PreviewGeometry {
        try PreviewGeometry(
            frameSize: frameSize, aperture: aperture, orientation: orientation, mirrored: mirrored,
            previewSize: previewSize, gravity: gravity)
    }
}

/// Takes frames one at a time through detection, the result writer and the
/// annotator. Owns a detector, so it belongs to one thread at a time.
public final class FrameProcessor {
    public let detector: FaceDetector
    public let settings: GeometrySettings
    public let writer: ResultWriter
    private var annotator: Annotator?
    /// Frames of one source share a size: the geometry is made once per size.
    private var cachedGeometry: PreviewGeometry?

    public init(detector: FaceDetector, settings: GeometrySettings, writer: ResultWriter, annotator: Annotator?) {
        self.detector = detector
        self.settings = settings
        self.writer = writer
        self.annotator = annotator
    }

    /// Detects, writes the result and saves the annotated frame as
    /// `annotationName`.jpg when annotating. `.output` errors mean nothing
    /// more can be written; others concern this frame only.
    @discardableResult
    public func process(
        _ frame: Frame, source: String, index: Int, time: Double, annotationName: String
    ) throws(FaceCamError) -> FrameResult {
        let geometry = try geometry(for: frame.size, source: source)
        let faces = try detector.detect(in: frame, geometry: geometry)
        let result = FrameResult(
            source: source, frame: index, time: time, size: frame.size, previewSize: geometry.previewSize, faces: faces)
        do {
            try writer.write(result)
        } catch {
            throw .output(error)
        }
        try annotator?.save(frame, faces: faces, geometry: geometry, name: annotationName)
        return result
    }

    private func geometry(for size: PixelSize, source: String) throws(FaceCamError) -> PreviewGeometry {
        if let cachedGeometry, cachedGeometry.frameSize == size { return cachedGeometry }
        do {
            let geometry = try settings.geometry(for: size)
            cachedGeometry = geometry
            return geometry
        } catch {
            throw .geometry(source: source, error)
        }
    }
}
