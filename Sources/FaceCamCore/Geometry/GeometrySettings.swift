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

    /// The geometry for frames of `source`; an error names the source.
    public func geometry(for frameSize: PixelSize, source: String) throws(FaceCamError) -> PreviewGeometry {
        do {
            return try geometry(for: frameSize)
        } catch {
            throw .geometry(source: source, error)
        }
    }
}
