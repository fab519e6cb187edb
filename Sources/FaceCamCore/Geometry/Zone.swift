import Foundation

/// A polygon in preview coordinates (`--zone NAME=x1,y1,x2,y2,x3,y3,...`): faces report the zones
/// their centre lies in, and tracks enter and leave each zone.
public struct Zone: Hashable, Sendable {
    public var name: String
    public var points: [Point]

    public init(name: String, points: [Point]) {
        self.name = name
        self.points = points
    }

    /// Parses `NAME=x1,y1,x2,y2,x3,y3,...`; the error says what is wrong.
    public init(parsing text: String) throws(ZoneError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ZoneError("\(text): write NAME=x1,y1,x2,y2,x3,y3,... (the polygon's corners in preview pixels)")
        }
        let name = String(text[..<equals])
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw ZoneError("\(text): a zone's name is letters, digits, _ and - (it names MQTT topics and records)")
        }
        self.init(name: name, points: try Self.points(String(text[text.index(after: equals)...]), in: text))
    }

    /// Parses `x1,y1,x2,y2,x3,y3,...` into at least three corners of a polygon that does not cross itself.
    public static func points(_ text: String, in whole: String) throws(ZoneError) -> [Point] {
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.allSatisfy({ $0?.isFinite == true }), numbers.count % 2 == 0 else {
            throw ZoneError("\(whole): the corners are pairs of numbers x,y separated by commas")
        }
        let points = stride(from: 0, to: numbers.count, by: 2).map { Point(x: numbers[$0]!, y: numbers[$0 + 1]!) }
        guard points.count >= 3 else { throw ZoneError("\(whole): a polygon needs three corners or more") }
        if crossesItself(points) { throw ZoneError("\(whole): the polygon crosses itself; list its corners in order around it") }
        guard area(points) != 0 else { throw ZoneError("\(whole): the corners are on one line, which encloses nothing") }
        return points
    }

    /// Whether `point` lies inside (even-odd rule; points on the border count as inside).
    public func contains(_ point: Point) -> Bool {
        Self.contains(points, point)
    }

    package static func contains(_ points: [Point], _ point: Point) -> Bool {
        var inside = false
        var j = points.count - 1
        for i in points.indices {
            let a = points[i], b = points[j]
            if onSegment(point, a, b) { return true }
            if (a.y > point.y) != (b.y > point.y),
               point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    /// The first corner outside a preview of `size`, if any.
    public static func cornerOutside(_ points: [Point], of size: PixelSize) -> Point? {
        points.first { !(0...Double(size.width)).contains($0.x) || !(0...Double(size.height)).contains($0.y) }
    }

    /// Says which of the `named` polygons has a corner outside a preview of `size`, and where; nil when all fit.
    public static func problem(_ named: [(name: PolygonName, points: [Point])], previewSize size: PixelSize) -> PolygonOutside? {
        for (name, points) in named {
            if let corner = cornerOutside(points, of: size) { return PolygonOutside(name: name, corner: corner, previewSize: size) }
        }
        return nil
    }

    private static func area(_ points: [Point]) -> Double {
        zip(points, points.dropFirst() + [points[0]]).reduce(0) { $0 + $1.0.x * $1.1.y - $1.1.x * $1.0.y } / 2
    }

    /// Whether two edges that are not neighbours touch or cross.
    private static func crossesItself(_ points: [Point]) -> Bool {
        let n = points.count
        for i in 0..<n {
            for j in (i + 1)..<n where j != i + 1 && !(i == 0 && j == n - 1) {
                if segmentsTouch(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n]) { return true }
            }
        }
        return false
    }

    private static func orientation(_ a: Point, _ b: Point, _ c: Point) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    private static func onSegment(_ p: Point, _ a: Point, _ b: Point) -> Bool {
        orientation(a, b, p) == 0 && min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }

    private static func segmentsTouch(_ p1: Point, _ p2: Point, _ q1: Point, _ q2: Point) -> Bool {
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2)
        let d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        return onSegment(p1, q1, q2) || onSegment(p2, q1, q2) || onSegment(q1, p1, p2) || onSegment(q2, p1, p2)
    }
}

public struct ZoneError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Which of a run's polygons a message is about.
public enum PolygonName: Sendable, Equatable, CustomStringConvertible {
    /// A named zone (`--zone`).
    case zone(String)
    /// The `n`th ignored polygon, from 1 (`--ignore-zone`).
    case ignored(Int)
    /// The `n`th privacy mask, from 1 (`--mask-zone`).
    case mask(Int)

    public var description: String {
        switch self {
        case .zone(let name): "zone \(name)"
        case .ignored(let index): "ignored zone \(index)"
        case .mask(let index): "mask \(index)"
        }
    }
}

/// A polygon with a corner outside the preview it is drawn on.
public struct PolygonOutside: Sendable, Equatable, CustomStringConvertible {
    public var name: PolygonName
    public var corner: Point
    public var previewSize: PixelSize

    public var description: String { described(naming: name.description) }

    /// What is wrong, the polygon called `naming`.
    public func described(naming: String) -> String {
        "\(naming): the corner \(decimal(corner.x)),\(decimal(corner.y)) lies outside the \(previewSize) preview"
    }
}

/// Polygons given in the preview's pixels (zones, ignored zones, privacy masks), which must fit
/// each source's preview.
public protocol PreviewPolygons {
    /// Says which polygon has a corner outside a preview of `size`, if one has.
    func problem(previewSize size: PixelSize) -> PolygonOutside?
}

extension PreviewPolygons {
    /// Throws when a polygon has a corner outside `geometry`'s preview, naming it and `source`.
    public func check(_ geometry: PreviewGeometry, source: String) throws(FaceCamError) {
        if let problem = problem(previewSize: geometry.previewSize) { throw .zone(source: source, problem) }
    }
}
