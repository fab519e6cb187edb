/// Zones for any detector (`--zone`, `--ignore-zone`): each face is labelled with the named zones
/// its centre in the preview lies in, and a face centred in an `ignored` polygon is dropped. The
/// frame is searched whole: blanking an ignored polygon first made YuNet find faces at its edges.
public struct ZoneFilter: FaceFilter, PreviewPolygons, Sendable, Equatable {
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

    /// The polygons are in the preview's coordinates: `problem` says, before a source's first frame, whether they
    /// fit its preview.
    public func kept(_ faces: [Face]) -> [Face] {
        var faces = faces
        faces.removeAll { face in
            let centre = face.preview.centre
            return ignored.contains { Zone.contains($0, centre) }
        }
        if !zones.isEmpty {
            for index in faces.indices {
                let centre = faces[index].preview.centre
                faces[index].zones = zones.filter { $0.contains(centre) }.map(\.name)
            }
        }
        return faces
    }
}
