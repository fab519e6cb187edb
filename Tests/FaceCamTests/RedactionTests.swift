import Testing
@testable import FaceCam

/// Masks against their definitions: a pixel is hidden exactly when its centre lies in the shape.
struct RedactionTests {
    /// A 48x36 frame in which no two neighbouring pixels are alike, so that any change shows.
    static func textured() -> Frame {
        var frame = Frame(width: 48, height: 36)
        for y in 0..<36 {
            for x in 0..<48 {
                frame.setPixel(x: x, y: y, to: BGRA(blue: UInt8((x * 37 + y * 11) % 256), green: UInt8((x * 5 + y * 53) % 256), red: UInt8((x * y) % 256)))
            }
        }
        return frame
    }

    @Test func boxesAreEnlargedAroundTheirCentres() {
        let settings = RedactionSettings(scale: 1.5)
        #expect(settings.region(for: Rect(x: 10, y: 20, width: 40, height: 60)) == Rect(x: 0, y: 5, width: 60, height: 90))
    }

    /// Solid ellipse: the box (14, 8, 20, 16) at scale 1 gives the ellipse centred on (24, 16) with
    /// radii 10 and 8; every pixel whose centre is inside is black, every other one untouched.
    @Test func solidEllipseCoversExactlyTheInscribedEllipse() throws {
        let original = Self.textured()
        var frame = original
        try frame.redact([Rect(x: 14, y: 8, width: 20, height: 16)], settings: RedactionSettings(mode: .solid, scale: 1))
        var inside = 0
        for y in 0..<36 {
            for x in 0..<48 {
                let (dx, dy) = ((Double(x) + 0.5 - 24) / 10, (Double(y) + 0.5 - 16) / 8)
                if dx * dx + dy * dy <= 1 {
                    inside += 1
                    #expect(frame.pixel(x: x, y: y) == BGRA(blue: 0, green: 0, red: 0), "(\(x), \(y))")
                } else {
                    #expect(frame.pixel(x: x, y: y) == original.pixel(x: x, y: y), "(\(x), \(y))")
                }
            }
        }
        // Close to the ellipse's area, pi x 10 x 8.
        #expect(abs(Double(inside) - Double.pi * 80) < 12)
    }

    /// Box shape, reaching past the frame's left and top edges: clipped, and pixels centred in it hidden.
    @Test func solidBoxIsClippedToTheFrame() throws {
        let original = Self.textured()
        var frame = original
        try frame.redact([Rect(x: -5.5, y: -3, width: 12, height: 10)], settings: RedactionSettings(mode: .solid, shape: .box, scale: 1))
        for y in 0..<36 {
            for x in 0..<48 {
                let covered = Double(x) + 0.5 < 6.5 && Double(y) + 0.5 < 7
                let expected = covered ? BGRA(blue: 0, green: 0, red: 0) : original.pixel(x: x, y: y)
                #expect(frame.pixel(x: x, y: y) == expected, "(\(x), \(y))")
            }
        }
    }

    /// Image mode stretches the picture over the whole region, opaque even where the picture is
    /// transparent: a 4x2 picture, left half one colour and right half another (transparent), over a
    /// 16x8 box, gives 4 columns of each colour per picture column, blended only between the halves.
    @Test func imageModeStretchesAnOpaquePictureOverTheRegion() throws {
        let (left, right) = (BGRA(blue: 10, green: 200, red: 30), BGRA(blue: 250, green: 20, red: 90, alpha: 0))
        var picture = Frame(width: 4, height: 2)
        for y in 0..<2 {
            for x in 0..<4 { picture.setPixel(x: x, y: y, to: x < 2 ? left : right) }
        }
        let settings = RedactionSettings(mode: .image, replacement: OverlayImage(frame: picture, path: "picture"), shape: .box, scale: 1)
        let original = Self.textured()
        var frame = original
        try frame.redact([Rect(x: 8, y: 4, width: 16, height: 8)], settings: settings)
        for y in 0..<36 {
            for x in 0..<48 {
                let pixel = frame.pixel(x: x, y: y)
                if x < 8 || x >= 24 || y < 4 || y >= 12 {
                    #expect(pixel == original.pixel(x: x, y: y), "(\(x), \(y))")
                } else if x < 14 {
                    #expect(pixel == left, "(\(x), \(y))")
                } else if x >= 18 {
                    #expect(pixel == BGRA(blue: right.blue, green: right.green, red: right.red), "(\(x), \(y))")
                } else {
                    #expect(pixel.alpha == 255, "(\(x), \(y))")
                }
            }
        }
    }

    /// Blur and pixelate change the face and nothing outside it; pixelated blocks are an eighth of the
    /// region's larger side (32 pixels: blocks of 4) and uniform.
    @Test(arguments: [RedactionSettings.Mode.blur, .pixelate])
    func blurAndPixelateStayInsideTheShape(_ mode: RedactionSettings.Mode) throws {
        let original = Self.textured()
        var frame = original
        try frame.redact([Rect(x: 8, y: 2, width: 32, height: 32)], settings: RedactionSettings(mode: mode, scale: 1))
        var changed = 0
        for y in 0..<36 {
            for x in 0..<48 {
                let (dx, dy) = ((Double(x) + 0.5 - 24) / 16, (Double(y) + 0.5 - 18) / 16)
                if dx * dx + dy * dy > 1 {
                    #expect(frame.pixel(x: x, y: y) == original.pixel(x: x, y: y), "(\(x), \(y))")
                } else if frame.pixel(x: x, y: y) != original.pixel(x: x, y: y) {
                    changed += 1
                }
            }
        }
        #expect(changed > 700, "most of the 804 pixels inside change")
        if mode == .pixelate {
            // The block from (20, 14) to (24, 18), well inside the circle.
            let block = frame.pixel(x: 20, y: 14)
            for y in 14..<18 { for x in 20..<24 { #expect(frame.pixel(x: x, y: y) == block) } }
            #expect(frame.pixel(x: 24, y: 14) != block)
        }
    }

    /// Regions that are empty, not finite or wholly outside change nothing and fail nothing.
    @Test func degenerateRegionsAreIgnored() throws {
        let original = Self.textured()
        var frame = original
        try frame.redact(
            [Rect(x: .nan, y: 0, width: 10, height: 10), Rect(x: 0, y: 0, width: 0, height: 10),
             Rect(x: 100, y: 100, width: 10, height: 10), Rect(x: -1e300, y: -1e300, width: 1e300, height: 1e300)],
            settings: RedactionSettings(mode: .solid))
        #expect(frame.pixels == original.pixels)
    }
}
