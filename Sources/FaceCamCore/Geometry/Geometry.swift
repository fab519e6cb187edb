#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Coordinates throughout facecam are pixels with the origin at the top-left
// corner of the top-left pixel, x to the right and y down. Pixel (i, j)
// covers [i, i+1) x [j, j+1), so an image W pixels wide spans x in [0, W].
// A rect is (x, y, width, height) with (x, y) its top-left corner.

/// A point in some pixel coordinate space (see the file's convention).
public struct Point: Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A width and height in pixels.
public struct Size: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// An axis-aligned rect: (x, y) is its top-left corner.
public struct Rect: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public var centre: Point { Point(x: x + width / 2, y: y + height / 2) }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest rect holding both points.
    public init(spanning p: Point, _ q: Point) {
        self.init(x: min(p.x, q.x), y: min(p.y, q.y), width: abs(p.x - q.x), height: abs(p.y - q.y))
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
}

extension Rect {
    public var area: Double { width * height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }

    /// Whether `other` lies wholly inside `self`.
    public func contains(_ other: Rect) -> Bool {
        other.minX >= minX && other.minY >= minY && other.maxX <= maxX && other.maxY <= maxY
    }

    /// Whether `point` lies inside `self`, its left and top edges included, its right and bottom ones not.
    public func contains(_ point: Point) -> Bool {
        point.x >= minX && point.x < maxX && point.y >= minY && point.y < maxY
    }

    /// The part of the rect inside an image of `size` (a preview's box may reach past its edges, with
    /// `--gravity fill` wholly, and a model's box past the frame's); nil when nothing is inside.
    package func clipped(to size: PixelSize) -> Rect? {
        let x0 = min(max(x, 0), Double(size.width)), x1 = min(max(x + width, 0), Double(size.width))
        let y0 = min(max(y, 0), Double(size.height)), y1 = min(max(y + height, 0), Double(size.height))
        return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    /// The area `self` and `other` share.
    public func intersectionArea(with other: Rect) -> Double {
        let width = min(maxX, other.maxX) - max(minX, other.minX)
        let height = min(maxY, other.maxY) - max(minY, other.minY)
        return width > 0 && height > 0 ? width * height : 0
    }

    /// Intersection over union: 0 for disjoint rects, 1 for equal ones.
    public func overlap(with other: Rect) -> Double {
        let intersection = intersectionArea(with: other)
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }

    /// The smallest rect holding both.
    public func union(_ other: Rect) -> Rect {
        Rect(spanning: Point(x: min(minX, other.minX), y: min(minY, other.minY)), Point(x: max(maxX, other.maxX), y: max(maxY, other.maxY)))
    }

    /// The rect widened by `fraction` of its width and height on each side, about its centre.
    public func widened(by fraction: Double) -> Rect {
        let (dx, dy) = (width * fraction, height * fraction)
        return Rect(x: x - dx, y: y - dy, width: width + 2 * dx, height: height + 2 * dy)
    }

    /// The rect moved `times` steps of `step` (a distance, as a point).
    public func moved(by step: Point, times: Double) -> Rect {
        Rect(x: x + step.x * times, y: y + step.y * times, width: width, height: height)
    }
}

extension Point {
    /// The point mirrored through the origin: a step the other way.
    public var negated: Point { Point(x: -x, y: -y) }
}

/// A whole-pixel size, as images and previews have.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var size: Size { Size(width: Double(width), height: Double(height)) }
    public var description: String { "\(width)x\(height)" }
}

/// A whole-pixel rect, as face boxes and apertures are.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var rect: Rect { Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "\(x),\(y),\(width),\(height)" }

    /// Intersection over union: 0 for disjoint rects, 1 for equal ones.
    public func overlap(with other: PixelRect) -> Double { rect.overlap(with: other.rect) }

    /// The rect grown by `margin` pixels on every side (shrunk when it is negative).
    public func expanded(by margin: Int) -> PixelRect {
        PixelRect(x: x - margin, y: y - margin, width: width + 2 * margin, height: height + 2 * margin)
    }

    /// True when the rect is non-empty and lies within a `size` image.
    public func isInside(_ size: PixelSize) -> Bool {
        x >= 0 && y >= 0 && width > 0 && height > 0 && width <= size.width - x && height <= size.height - y
    }
}

/// An affine map p' = (a·x + c·y + tx, b·x + d·y + ty), laid out as Core
/// Graphics' CGAffineTransform.
public struct AffineTransform: Hashable, Sendable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    /// The map that applies `self` first and `next` second.
    public func followed(by next: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: next.a * a + next.c * b,
            b: next.b * a + next.d * b,
            c: next.a * c + next.c * d,
            d: next.b * c + next.d * d,
            tx: next.a * tx + next.c * ty + next.tx,
            ty: next.b * tx + next.d * ty + next.ty)
    }

    /// The inverse map, or nil when this one collapses the plane.
    public func inverted() -> AffineTransform? {
        let determinant = a * d - b * c
        guard determinant != 0, determinant.isFinite else { return nil }
        return AffineTransform(
            a: d / determinant, b: -b / determinant,
            c: -c / determinant, d: a / determinant,
            tx: (c * ty - d * tx) / determinant,
            ty: (b * tx - a * ty) / determinant)
    }

    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    /// A turn by `degrees` about the origin, clockwise as an image with y down is shown.
    public static func rotation(degrees: Double) -> AffineTransform {
        let radians = degrees * .pi / 180
        return AffineTransform(a: cos(radians), b: sin(radians), c: -sin(radians), d: cos(radians), tx: 0, ty: 0)
    }

    /// The turn, scale and shift (no shear, no mirror) that best takes `source` onto `destination`,
    /// point by point, in the least-squares sense (Umeyama's closed form); nil when the counts
    /// differ, there are fewer than two points, or the source points coincide.
    public static func similarity(from source: [Point], to destination: [Point]) -> AffineTransform? {
        guard source.count == destination.count, source.count >= 2 else { return nil }
        let n = Double(source.count)
        let (sx, sy) = (source.map(\.x).reduce(0, +) / n, source.map(\.y).reduce(0, +) / n)
        let (dx, dy) = (destination.map(\.x).reduce(0, +) / n, destination.map(\.y).reduce(0, +) / n)
        var (dot, cross, spread) = (0.0, 0.0, 0.0)
        for (p, q) in zip(source, destination) {
            let (px, py, qx, qy) = (p.x - sx, p.y - sy, q.x - dx, q.y - dy)
            dot += px * qx + py * qy
            cross += px * qy - py * qx
            spread += px * px + py * py
        }
        guard spread > 0, spread.isFinite else { return nil }
        let (a, b) = (dot / spread, cross / spread)
        return AffineTransform(a: a, b: b, c: -b, d: a, tx: dx - a * sx + b * sy, ty: dy - b * sx - a * sy)
    }

    /// For a turn (and scale) made by `rotation(degrees:)` or `similarity`: its angle in degrees, -180...180.
    public var rotationDegrees: Double { atan2(b, a) * 180 / .pi }

    /// The same map on pixel indices rather than continuous coordinates (a pixel's index is its
    /// centre's coordinate less one half), as OpenCV's warpAffine takes maps.
    public var onPixelIndices: AffineTransform {
        AffineTransform.translation(x: 0.5, y: 0.5).followed(by: self).followed(by: .translation(x: -0.5, y: -0.5))
    }

    /// Maps both corners and takes the rect they span. Exact for the maps
    /// facecam builds, which keep axes parallel (rotations by quarter turns,
    /// flips, scales and translations).
    public func apply(_ r: Rect) -> Rect {
        Rect(spanning: apply(Point(x: r.minX, y: r.minY)), apply(Point(x: r.maxX, y: r.maxY)))
    }
}

/// How a buffer must be transformed to be upright: the EXIF orientation tag
/// (1...8), named as CGImagePropertyOrientation names them.
public enum Orientation: Int, CaseIterable, Sendable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Accepts 1...8 or a name: up, up-mirrored, down, down-mirrored,
    /// left-mirrored, right, right-mirrored, left (case and `-`/`_` ignored).
    public init?(argument: String) {
        if let value = Int(argument) {
            self.init(rawValue: value)
            return
        }
        let key = argument.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let match = Orientation.allCases.first(where: { $0.name.filter { $0 != "-" } == key }) else {
            return nil
        }
        self = match
    }

    public var name: String {
        switch self {
        case .up: "up"
        case .upMirrored: "up-mirrored"
        case .down: "down"
        case .downMirrored: "down-mirrored"
        case .leftMirrored: "left-mirrored"
        case .right: "right"
        case .rightMirrored: "right-mirrored"
        case .left: "left"
        }
    }

    /// Orientations 5...8 turn the buffer a quarter turn: width and height swap.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// Maps a W x H buffer onto the upright image:
    /// 1 (x, y), 2 (W-x, y), 3 (W-x, H-y), 4 (x, H-y),
    /// 5 (y, x), 6 (H-y, x), 7 (H-y, W-x), 8 (y, W-x).
    public func transform(for size: Size) -> AffineTransform {
        let (w, h) = (size.width, size.height)
        switch self {
        case .up: return .identity
        case .upMirrored: return AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: w, ty: 0)
        case .down: return AffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case .downMirrored: return AffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: h)
        case .leftMirrored: return AffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        case .right: return AffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
        case .rightMirrored: return AffineTransform(a: 0, b: -1, c: -1, d: 0, tx: h, ty: w)
        case .left: return AffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
        }
    }
}

/// How the upright video is scaled into the preview, as AVLayerVideoGravity.
public enum Gravity: String, CaseIterable, Sendable {
    /// Stretch to fill the preview: each axis scaled on its own.
    case resize
    /// Keep the aspect ratio and fit inside the preview, centred (bars on one axis).
    case aspect
    /// Keep the aspect ratio and cover the preview, centred (cropped on one axis).
    case fill
}

/// Why a geometry was refused; `option` names the setting at fault.
public struct GeometryError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Option: String, Sendable { case frame, aperture, preview }
    public var option: Option
    public var description: String
}

/// Where a frame's content appears in the preview.
///
/// A buffer point is mapped in this order:
/// 1. aperture: subtract the clean aperture's origin;
/// 2. orientation: make the aperture upright (`Orientation.transform`);
/// 3. mirroring: x -> W' - x, W' the upright width, as a front-camera preview shows it;
/// 4. gravity: scale the upright W' x H' video into the preview and centre it.
/// Steps 1-2 make `bufferToUpright`, 3-4 `uprightToPreview`.
public struct PreviewGeometry: Hashable, Sendable {
    public let frameSize: PixelSize
    public let aperture: PixelRect
    public let orientation: Orientation
    public let mirrored: Bool
    public let previewSize: PixelSize
    public let gravity: Gravity
    /// The aperture's size once upright (W' x H').
    public let uprightSize: PixelSize

    /// `aperture` defaults to the whole frame; `previewSize` to the upright aperture's size.
    public init(
        frameSize: PixelSize, aperture: PixelRect? = nil, orientation: Orientation = .up,
        mirrored: Bool = false, previewSize: PixelSize? = nil, gravity: Gravity = .aspect
    ) throws(GeometryError) {
        guard frameSize.width > 0, frameSize.height > 0 else {
            throw GeometryError(option: .frame, description: "frame size \(frameSize) is empty")
        }
        let aperture = aperture ?? PixelRect(x: 0, y: 0, width: frameSize.width, height: frameSize.height)
        guard aperture.width > 0, aperture.height > 0 else {
            throw GeometryError(option: .aperture, description: "aperture \(aperture) is empty")
        }
        guard aperture.isInside(frameSize) else {
            throw GeometryError(option: .aperture, description: "aperture \(aperture) is not inside the \(frameSize) frame")
        }
        let uprightSize = orientation.swapsAxes
            ? PixelSize(width: aperture.height, height: aperture.width) : aperture.size
        let previewSize = previewSize ?? uprightSize
        guard previewSize.width > 0, previewSize.height > 0 else {
            throw GeometryError(option: .preview, description: "preview size \(previewSize) is empty")
        }
        self.frameSize = frameSize
        self.aperture = aperture
        self.orientation = orientation
        self.mirrored = mirrored
        self.previewSize = previewSize
        self.gravity = gravity
        self.uprightSize = uprightSize
    }

    /// Steps 1-2: buffer coordinates to upright aperture coordinates.
    public var bufferToUpright: AffineTransform {
        AffineTransform.translation(x: -Double(aperture.x), y: -Double(aperture.y))
            .followed(by: orientation.transform(for: aperture.size.size))
    }

    /// Steps 3-4: upright aperture coordinates to preview coordinates.
    public var uprightToPreview: AffineTransform {
        let upright = uprightSize.size
        let preview = previewSize.size
        let mirror = mirrored
            ? AffineTransform(a: -1, b: 0, c: 0, d: 1, tx: upright.width, ty: 0) : .identity
        let (sx, sy): (Double, Double)
        switch gravity {
        case .resize:
            (sx, sy) = (preview.width / upright.width, preview.height / upright.height)
        case .aspect:
            let s = min(preview.width / upright.width, preview.height / upright.height)
            (sx, sy) = (s, s)
        case .fill:
            let s = max(preview.width / upright.width, preview.height / upright.height)
            (sx, sy) = (s, s)
        }
        let offset = AffineTransform.translation(
            x: (preview.width - upright.width * sx) / 2, y: (preview.height - upright.height * sy) / 2)
        return mirror.followed(by: .scale(x: sx, y: sy)).followed(by: offset)
    }

    /// Steps 1-4: buffer coordinates to preview coordinates.
    public var bufferToPreview: AffineTransform {
        bufferToUpright.followed(by: uprightToPreview)
    }

    /// Where the whole aperture appears in the preview.
    public var videoRect: Rect {
        bufferToPreview.apply(aperture.rect)
    }

    /// The buffer rect whose upright image is `upright`. The maps involved
    /// take whole pixels to whole pixels, so this is exact.
    public func bufferRect(fromUpright upright: PixelRect) -> PixelRect {
        // bufferToUpright has entries 0 and ±1 and whole translations: always invertible.
        let rect = bufferToUpright.inverted()!.apply(upright.rect)
        return PixelRect(
            x: Int(rect.x.rounded()), y: Int(rect.y.rounded()),
            width: Int(rect.width.rounded()), height: Int(rect.height.rounded()))
    }

    /// Where a buffer rect appears in the preview (not clipped to it).
    public func previewRect(of box: PixelRect) -> Rect {
        bufferToPreview.apply(box.rect)
    }
}

extension Orientation {
    /// The orientation for a player's clockwise turn of 0, 90, 180 or 270 degrees.
    public init?(clockwiseRotation degrees: Int) {
        switch degrees {
        case 0: self = .up
        case 90: self = .right
        case 180: self = .down
        case 270: self = .left
        default: return nil
        }
    }

    /// The single orientation that does `self`, then `next` to the result.
    public func followed(by next: Orientation) -> Orientation {
        // A 2x1 buffer tells all eight apart.
        let buffer = Size(width: 2, height: 1)
        let upright = swapsAxes ? Size(width: 1, height: 2) : buffer
        let combined = transform(for: buffer).followed(by: next.transform(for: upright))
        return Orientation.allCases.first { $0.transform(for: buffer) == combined }!
    }
}
