/// Zones for any detector (`--zone`, `--ignore-zone`): each face is labelled with the named zones
/// its centre in the preview lies in, and a face centred in an `ignored` polygon is dropped. The
/// frame is searched whole: blanking an ignored polygon first made YuNet find faces at its edges.
public final class ZoneFilter: FrameFaceDetector {
    public struct Settings: PreviewPolygons, Sendable, Equatable {
        public var zones: [Zone]
        public var ignored: [[Point]]

        public init(zones: [Zone], ignored: [[Point]]) {
            self.zones = zones
            self.ignored = ignored
        }

        /// Says which polygon has a corner outside a preview of `size`, if one has.
        public func problem(previewSize size: PixelSize) -> PolygonOutside? {
            Zone.problem(
                zones.map { (.zone($0.name), $0.points) } + ignored.enumerated().map { (.ignored($0.offset + 1), $0.element) },
                previewSize: size)
        }
    }

    public let detector: any FrameFaceDetector
    public let settings: Settings

    public init(_ detector: any FrameFaceDetector, settings: Settings) {
        self.detector = detector
        self.settings = settings
    }

    /// The polygons are in the preview's coordinates: `Settings.check` says, before a source's
    /// first frame, whether they fit its preview.
    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        var faces = try detector.detect(in: frame, geometry: geometry)
        faces.removeAll { face in
            let centre = face.preview.centre
            return settings.ignored.contains { Zone.contains($0, centre) }
        }
        if !settings.zones.isEmpty {
            for index in faces.indices {
                let centre = faces[index].preview.centre
                faces[index].zones = settings.zones.filter { $0.contains(centre) }.map(\.name)
            }
        }
        return faces
    }

    public func beginSource() { detector.beginSource() }
}
