import Testing
@testable import FaceCam

/// Zones' polygons, checked by hand-worked cases.
struct ZoneTests {
    /// An L-shaped zone (concave): its corners 0,0 10,0 10,4 4,4 4,10 0,10.
    let ell = Zone(name: "ell", points: [(0, 0), (10, 0), (10, 4), (4, 4), (4, 10), (0, 10)].map { Point(x: $0.0, y: $0.1) })

    @Test(arguments: [
        (2.0, 2.0, true), (8, 2, true), (2, 8, true), (8, 8, false), (11, 2, false), (-1, 5, false),
        // On the border: inside.
        (10, 2, true), (4, 7, true), (0, 0, true),
    ])
    func containsItsInsideAndBorder(x: Double, y: Double, inside: Bool) {
        #expect(ell.contains(Point(x: x, y: y)) == inside)
    }

    @Test func parsesANamedPolygon() throws {
        let zone = try Zone(parsing: "door=10,20,110.5,20,110.5,220")
        #expect(zone.name == "door")
        #expect(zone.points == [Point(x: 10, y: 20), Point(x: 110.5, y: 20), Point(x: 110.5, y: 220)])
    }

    @Test(arguments: [
        ("door=0,0,10,0", "a polygon needs three corners or more"),
        ("door=0,0,10,0,10", "the corners are pairs of numbers"),
        ("door=0,0,10,x,10,10", "the corners are pairs of numbers"),
        ("door=0,0,5,5,10,10", "the corners are on one line"),
        // A bow tie: its first and third edges cross.
        ("door=0,0,10,10,10,0,0,10", "the polygon crosses itself"),
        // A corner visited twice touches an edge that is not its neighbour.
        ("door=0,0,10,0,5,5,10,10,0,10,5,5", "the polygon crosses itself"),
        ("0,0,10,0,10,10", "write NAME=x1,y1"),
        ("the door=0,0,10,0,10,10", "a zone's name is letters"),
    ])
    func refusesWhatIsNoSimplePolygon(text: String, message: String) {
        #expect(throws: ZoneError.self) { try Zone(parsing: text) }
        do {
            _ = try Zone(parsing: text)
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func findsACornerOutsideThePreview() {
        let size = PixelSize(width: 640, height: 360)
        #expect(Zone.cornerOutside(ell.points, of: size) == nil)
        #expect(Zone.cornerOutside([Point(x: 0, y: 0), Point(x: 640, y: 0), Point(x: 640, y: 361)], of: size) == Point(x: 640, y: 361))
        #expect(Zone.cornerOutside([Point(x: -1, y: 0), Point(x: 640, y: 0), Point(x: 640, y: 360)], of: size) == Point(x: -1, y: 0))
    }
}
