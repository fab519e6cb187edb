import Testing
@testable import FaceCamCore

/// `SizeCheck.redaction` on faces placed by hand: faint is under 0.3, confident 0.5 or more, dropped over 4 times
/// the median confident height within 2 of the faint face's heights of its centre row.
struct SizeCheckTests {
    /// A face whose preview box is `height` tall and as wide, its centre at row `centre`; the buffer box alike.
    static func face(x: Double = 0, centre: Double, height: Double, score: Double?) -> Face {
        let preview = Rect(x: x, y: centre - height / 2, width: height, height: height)
        var face = Face(box: PixelRect(x: Int(x), y: Int(preview.y), width: Int(height), height: Int(height)), preview: preview)
        face.score = score
        return face
    }

    let check = SizeCheck.redaction

    /// Confident faces 10 and 30 tall (median 20) beside faint faces: 81 is over 4 times 20 and goes, 80 stays,
    /// and so does an 81-tall face scoring 0.3 (not faint) and one without a score (a cascade's).
    @Test func aFaintFaceOverFourTimesTheMedianNearItIsDropped() {
        let faces = [
            Self.face(x: 0, centre: 200, height: 10, score: 0.9),
            Self.face(x: 50, centre: 200, height: 30, score: 0.5),
            Self.face(x: 100, centre: 200, height: 81, score: 0.29),
            Self.face(x: 200, centre: 200, height: 80, score: 0.1),
            Self.face(x: 300, centre: 200, height: 81, score: 0.3),
            Self.face(x: 400, centre: 200, height: 81, score: nil),
        ]
        #expect(check.kept(faces) == [faces[0], faces[1], faces[3], faces[4], faces[5]])
    }

    /// Near is within 2 of the faint face's heights of its centre row: a 100-tall faint face centred at row 300 is
    /// measured against a 10-tall confident face centred at row 500 (200 away), not against one at row 501.
    @Test func onlyConfidentFacesNearItsRowSetTheSize() {
        let faint = Self.face(x: 100, centre: 300, height: 100, score: 0.2)
        let near = Self.face(x: 0, centre: 500, height: 10, score: 0.9)
        let far = Self.face(x: 0, centre: 501, height: 10, score: 0.9)
        #expect(check.kept([near, faint]) == [near])
        #expect(check.kept([far, faint]) == [far, faint])
        // Above it as below it.
        let above = Self.face(x: 0, centre: 100, height: 10, score: 0.9)
        #expect(check.kept([above, faint]) == [above])
    }

    /// With no confident face, or none near, nothing says what size a faint face should have: all are kept.
    @Test func withoutConfidentFacesNothingIsDropped() {
        let faces = [Self.face(centre: 100, height: 10, score: 0.45), Self.face(x: 50, centre: 100, height: 200, score: 0.1)]
        #expect(check.kept(faces) == faces)
        #expect(check.kept([]) == [])
    }

    /// Three confident faces 10, 12 and 100 tall: the median is 12, so a faint 49 goes and a faint 48 stays.
    @Test func theMedianOfAnOddCountIsItsMiddleHeight() {
        let confident = [10.0, 12, 100].enumerated().map { Self.face(x: Double($0.offset) * 120, centre: 400, height: $0.element, score: 0.8) }
        let faint = [49.0, 48].enumerated().map { Self.face(x: 400 + Double($0.offset) * 60, centre: 400, height: $0.element, score: 0.15) }
        #expect(check.kept(confident + faint) == confident + [faint[1]])
    }
}
