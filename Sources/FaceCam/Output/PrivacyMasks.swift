/// `--mask-zone` polygons, in preview coordinates: painted black on every picture facecam writes
/// or shows (annotated JPEGs and videos, redacted files, crops, the live previews and snapshots),
/// after detection, which sees the whole frame.
public struct PrivacyMasks: PreviewPolygons, Sendable, Equatable {
    public var polygons: [[Point]]

    public init(polygons: [[Point]]) {
        self.polygons = polygons
    }

    /// Says which polygon has a corner outside a preview of `size`, if one has.
    public func problem(previewSize size: PixelSize) -> PolygonOutside? {
        Zone.problem(polygons.enumerated().map { (.mask($0.offset + 1), $0.element) }, previewSize: size)
    }

    /// `frame` with the polygons painted over, mapped from the preview into its buffer by `geometry`.
    public func applied(to frame: Frame, geometry: PreviewGeometry) -> Frame {
        guard !polygons.isEmpty, let previewToBuffer = geometry.bufferToPreview.inverted() else { return frame }
        var masked = frame
        for polygon in polygons { masked.paintBlack(polygon.map(previewToBuffer.apply)) }
        return masked
    }
}

extension Frame {
    /// Paints black each pixel whose centre lies inside `polygon` (buffer coordinates), row by row.
    mutating func paintBlack(_ polygon: [Point]) {
        guard let top = polygon.map(\.y).min(), let bottom = polygon.map(\.y).max() else { return }
        let first = max(0, Int((top - 0.5).rounded(.up)))
        let last = min(height - 1, Int((bottom - 0.5).rounded(.down)))
        guard first <= last else { return }
        for row in first...last {
            let y = Double(row) + 0.5
            // Where the row's centre line crosses the edges, left to right: inside between pairs.
            var crossings: [Double] = []
            for (a, b) in zip(polygon, polygon.dropFirst() + [polygon[0]]) where (a.y > y) != (b.y > y) {
                crossings.append(a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y))
            }
            crossings.sort()
            for pair in stride(from: 0, to: crossings.count - 1, by: 2) {
                let left = max(0, Int((crossings[pair] - 0.5).rounded(.up)))
                let right = min(width - 1, Int((crossings[pair + 1] - 0.5).rounded(.down)))
                guard left <= right else { continue }
                let start = row * bytesPerRow + left * 4
                for i in stride(from: start, to: start + (right - left + 1) * 4, by: 4) {
                    pixels[i] = 0
                    pixels[i + 1] = 0
                    pixels[i + 2] = 0
                }
            }
        }
    }
}
