import Testing
@testable import FaceCamCore

/// Hand-computed cases for a 40x20 frame, the rect (4, 2, 6, 4) (corners
/// (4, 2) and (10, 6)) and a 100x100 preview.
struct GeometryTableTests {
    static let frame = PixelSize(width: 40, height: 20)
    static let rect = PixelRect(x: 4, y: 2, width: 6, height: 4)
    static let preview = PixelSize(width: 100, height: 100)

    /// The rect once upright, then mirrored, by the contract's point formulas
    /// (W = 40, H = 20; mirroring is x -> W' - x with W' = 40 for 1-4, 20 for 5-8).
    static let upright: [Orientation: (plain: Rect, mirrored: Rect)] = [
        .up: (Rect(x: 4, y: 2, width: 6, height: 4), Rect(x: 30, y: 2, width: 6, height: 4)),
        .upMirrored: (Rect(x: 30, y: 2, width: 6, height: 4), Rect(x: 4, y: 2, width: 6, height: 4)),
        .down: (Rect(x: 30, y: 14, width: 6, height: 4), Rect(x: 4, y: 14, width: 6, height: 4)),
        .downMirrored: (Rect(x: 4, y: 14, width: 6, height: 4), Rect(x: 30, y: 14, width: 6, height: 4)),
        .leftMirrored: (Rect(x: 2, y: 4, width: 4, height: 6), Rect(x: 14, y: 4, width: 4, height: 6)),
        .right: (Rect(x: 14, y: 4, width: 4, height: 6), Rect(x: 2, y: 4, width: 4, height: 6)),
        .rightMirrored: (Rect(x: 14, y: 30, width: 4, height: 6), Rect(x: 2, y: 30, width: 4, height: 6)),
        .left: (Rect(x: 2, y: 30, width: 4, height: 6), Rect(x: 14, y: 30, width: 4, height: 6)),
    ]

    /// Scale and offset of each gravity, for a 40x20 upright video (1-4) and a 20x40 one (5-8), into 100x100.
    /// resize: 100/40, 100/20; aspect: min = 2.5, centred on the short axis; fill: max = 5, cropped on the long one.
    static let gravity: [Bool: [Gravity: (sx: Double, sy: Double, ox: Double, oy: Double)]] = [
        false: [.resize: (2.5, 5, 0, 0), .aspect: (2.5, 2.5, 0, 25), .fill: (5, 5, -50, 0)],
        true: [.resize: (5, 2.5, 0, 0), .aspect: (2.5, 2.5, 25, 0), .fill: (5, 5, 0, -50)],
    ]

    @Test(arguments: Orientation.allCases, [false, true])
    func everyOrientationMirrorAndGravity(orientation: Orientation, mirrored: Bool) throws {
        let expectedUpright = mirrored ? Self.upright[orientation]!.mirrored : Self.upright[orientation]!.plain
        for gravity in Gravity.allCases {
            let geometry = try PreviewGeometry(
                frameSize: Self.frame, orientation: orientation, mirrored: mirrored,
                previewSize: Self.preview, gravity: gravity)
            let g = Self.gravity[orientation.swapsAxes]![gravity]!
            let expected = Rect(
                x: expectedUpright.x * g.sx + g.ox, y: expectedUpright.y * g.sy + g.oy,
                width: expectedUpright.width * g.sx, height: expectedUpright.height * g.sy)
            #expect(geometry.previewRect(of: Self.rect) == expected, "\(orientation) mirrored \(mirrored) \(gravity)")
        }
    }

    @Test(arguments: Orientation.allCases)
    func uprightRectWithDefaultPreviewIsIdentityScaled(orientation: Orientation) throws {
        let geometry = try PreviewGeometry(frameSize: Self.frame, orientation: orientation)
        #expect(geometry.previewRect(of: Self.rect) == Self.upright[orientation]!.plain)
        #expect(geometry.previewSize == (orientation.swapsAxes ? PixelSize(width: 20, height: 40) : Self.frame))
    }

    @Test func apertureOriginIsSubtractedFirst() throws {
        // Aperture (10, 5, 20, 10); orientation 6 makes it 10x20; H = 10 so (x, y) -> (10 - y, x).
        // Rect (14, 7, 4, 2) is (4, 2, 4, 2) in the aperture: corners (4, 2), (8, 4) -> (8, 4), (6, 8).
        let geometry = try PreviewGeometry(
            frameSize: Self.frame, aperture: PixelRect(x: 10, y: 5, width: 20, height: 10), orientation: .right)
        #expect(geometry.uprightSize == PixelSize(width: 10, height: 20))
        #expect(geometry.previewRect(of: PixelRect(x: 14, y: 7, width: 4, height: 2)) == Rect(x: 6, y: 4, width: 2, height: 4))
    }

    @Test func previewRectsAreNotClipped() throws {
        // fill into 100x100 crops 50 on each side of the 40x20 video's 200-wide image.
        let geometry = try PreviewGeometry(frameSize: Self.frame, previewSize: Self.preview, gravity: .fill)
        #expect(geometry.previewRect(of: PixelRect(x: 0, y: 0, width: 5, height: 5)) == Rect(x: -50, y: 0, width: 25, height: 25))
        #expect(geometry.videoRect == Rect(x: -50, y: 0, width: 200, height: 100))
    }

    @Test func invalidGeometryNamesTheOption() {
        #expect(throws: GeometryError(option: .aperture, description: "aperture 30,0,20,20 is not inside the 40x20 frame")) {
            try PreviewGeometry(frameSize: Self.frame, aperture: PixelRect(x: 30, y: 0, width: 20, height: 20))
        }
        #expect(throws: GeometryError(option: .aperture, description: "aperture 0,0,0,5 is empty")) {
            try PreviewGeometry(frameSize: Self.frame, aperture: PixelRect(x: 0, y: 0, width: 0, height: 5))
        }
        #expect(throws: GeometryError(option: .preview, description: "preview size 0x10 is empty")) {
            try PreviewGeometry(frameSize: Self.frame, previewSize: PixelSize(width: 0, height: 10))
        }
        #expect(throws: GeometryError(option: .frame, description: "frame size 0x0 is empty")) {
            try PreviewGeometry(frameSize: PixelSize(width: 0, height: 0))
        }
    }

    @Test func orientationNames() {
        #expect(Orientation(argument: "6") == .right)
        #expect(Orientation(argument: "right") == .right)
        #expect(Orientation(argument: "Up-Mirrored") == .upMirrored)
        #expect(Orientation(argument: "left_mirrored") == .leftMirrored)
        #expect(Orientation(argument: "9") == nil)
        #expect(Orientation(argument: "0") == nil)
        #expect(Orientation(argument: "sideways") == nil)
    }

    @Test func argumentSyntax() {
        #expect(PixelSize(argument: "640x480") == PixelSize(width: 640, height: 480))
        #expect(PixelSize(argument: "30") == PixelSize(width: 30, height: 30))
        #expect(PixelSize(argument: "640x") == nil)
        #expect(PixelSize(argument: "1x2x3") == nil)
        #expect(PixelRect(argument: "1,2,3,4") == PixelRect(x: 1, y: 2, width: 3, height: 4))
        #expect(PixelRect(argument: "1,2,3") == nil)
        #expect(PixelRect(argument: "1,2,3,4,5") == nil)
        #expect(PixelRect(argument: "1,2,,4") == nil)
        #expect(Rect(argument: "0.5,1,2.25,3") == Rect(x: 0.5, y: 1, width: 2.25, height: 3))
        #expect(Rect(argument: "nan,1,2,3") == nil)
    }
}

/// Properties over many random geometries (a fixed seed, so failures repeat).
struct GeometryPropertyTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func randomGeometries(count: Int) throws -> [PreviewGeometry] {
        var random = SplitMix64(state: 2026)
        return try (0..<count).map { _ in
            let frame = PixelSize(width: Int.random(in: 1...1920, using: &random), height: Int.random(in: 1...1080, using: &random))
            let x = Int.random(in: 0..<frame.width, using: &random)
            let y = Int.random(in: 0..<frame.height, using: &random)
            let aperture = PixelRect(
                x: x, y: y, width: Int.random(in: 1...(frame.width - x), using: &random),
                height: Int.random(in: 1...(frame.height - y), using: &random))
            return try PreviewGeometry(
                frameSize: frame, aperture: aperture, orientation: Orientation.allCases.randomElement(using: &random)!,
                mirrored: Bool.random(using: &random),
                previewSize: PixelSize(width: Int.random(in: 1...2000, using: &random), height: Int.random(in: 1...2000, using: &random)),
                gravity: Gravity.allCases.randomElement(using: &random)!)
        }
    }

    static func close(_ p: Rect, _ q: Rect) -> Bool {
        let tolerance = 1e-9 * max(1, abs(p.x), abs(p.y), abs(p.width), abs(p.height))
        return abs(p.x - q.x) <= tolerance && abs(p.y - q.y) <= tolerance
            && abs(p.width - q.width) <= tolerance && abs(p.height - q.height) <= tolerance
    }

    @Test func orientationAndItsInverseRoundTrip() throws {
        for geometry in try Self.randomGeometries(count: 500) {
            let a = geometry.aperture
            let box = PixelRect(x: a.x + a.width / 3, y: a.y + a.height / 4, width: max(1, a.width / 2), height: max(1, a.height / 2))
            let upright = geometry.bufferToUpright.apply(box.rect)
            let uprightBox = PixelRect(x: Int(upright.x), y: Int(upright.y), width: Int(upright.width), height: Int(upright.height))
            #expect(geometry.bufferRect(fromUpright: uprightBox) == box)
            let inverse = try #require(geometry.bufferToPreview.inverted())
            #expect(Self.close(inverse.apply(geometry.previewRect(of: box)), box.rect))
        }
    }

    @Test func uprightImageOfTheApertureFillsTheUprightSize() throws {
        for geometry in try Self.randomGeometries(count: 500) {
            let size = geometry.uprightSize
            #expect(geometry.bufferToUpright.apply(geometry.aperture.rect)
                == Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)))
        }
    }

    @Test func mirroringIsAnInvolution() throws {
        for geometry in try Self.randomGeometries(count: 200) {
            let flipped = try PreviewGeometry(
                frameSize: geometry.frameSize, aperture: geometry.aperture, orientation: geometry.orientation,
                mirrored: !geometry.mirrored, previewSize: geometry.previewSize, gravity: geometry.gravity)
            // Mirrored then unmirrored, in upright coordinates, is the identity.
            let there = try #require(geometry.uprightToPreview.inverted())
            let back = flipped.uprightToPreview.followed(by: there)
            let p = Point(x: 3.25, y: 7.5)
            let mirroredPoint = back.apply(p)
            #expect(abs(mirroredPoint.x - (Double(geometry.uprightSize.width) - p.x)) < 1e-9)
            #expect(abs(back.followed(by: back).apply(p).x - p.x) < 1e-9)
        }
    }

    @Test func apertureMapsToTheVideoBox() throws {
        for geometry in try Self.randomGeometries(count: 500) {
            let upright = geometry.uprightSize.size
            let preview = geometry.previewSize.size
            let expected: Rect
            switch geometry.gravity {
            case .resize:
                expected = Rect(x: 0, y: 0, width: preview.width, height: preview.height)
            case .aspect, .fill:
                let fit = geometry.gravity == .aspect
                    ? min(preview.width / upright.width, preview.height / upright.height)
                    : max(preview.width / upright.width, preview.height / upright.height)
                let size = Size(width: upright.width * fit, height: upright.height * fit)
                expected = Rect(x: (preview.width - size.width) / 2, y: (preview.height - size.height) / 2,
                                width: size.width, height: size.height)
                // The fitted video touches the preview on one axis at least.
                #expect(abs(size.width - preview.width) < 1e-6 || abs(size.height - preview.height) < 1e-6)
            }
            #expect(Self.close(geometry.videoRect, expected), "\(geometry)")
        }
    }

    @Test func compositionOrderIsSelfThenNext() {
        let translate = AffineTransform.translation(x: 10, y: 0)
        let scale = AffineTransform.scale(x: 2, y: 2)
        #expect(translate.followed(by: scale).apply(Point(x: 1, y: 1)) == Point(x: 22, y: 2))
        #expect(scale.followed(by: translate).apply(Point(x: 1, y: 1)) == Point(x: 12, y: 2))
        #expect(AffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 1, ty: 1).inverted() == nil)
    }
}

struct OrientationCompositionTests {
    @Test func handWorkedCompositions() {
        // Two quarter turns clockwise are a half turn; a quarter each way cancels.
        #expect(Orientation.right.followed(by: .right) == .down)
        #expect(Orientation.right.followed(by: .left) == .up)
        #expect(Orientation.down.followed(by: .down) == .up)
        // 6 then 2: (x, y) -> (H - y, x) -> (H - (H - y), x) = (y, x), which is 5.
        #expect(Orientation.right.followed(by: .upMirrored) == .leftMirrored)
        #expect(Orientation.upMirrored.followed(by: .upMirrored) == .up)
        for orientation in Orientation.allCases {
            #expect(Orientation.up.followed(by: orientation) == orientation)
            #expect(orientation.followed(by: .up) == orientation)
        }
    }

    @Test func clockwiseRotations() {
        #expect(Orientation(clockwiseRotation: 0) == .up)
        #expect(Orientation(clockwiseRotation: 90) == .right)
        #expect(Orientation(clockwiseRotation: 180) == .down)
        #expect(Orientation(clockwiseRotation: 270) == .left)
        #expect(Orientation(clockwiseRotation: 45) == nil)
    }

    @Test func pixelRectsGrowAndShrinkOnEverySide() {
        let box = PixelRect(x: 100, y: 50, width: 40, height: 30)
        #expect(box.expanded(by: 20) == PixelRect(x: 80, y: 30, width: 80, height: 70))
        #expect(box.expanded(by: -5) == PixelRect(x: 105, y: 55, width: 30, height: 20))
        #expect(box.expanded(by: 0) == box)
    }

    /// A rect holds the points of its left and top edges, not those of its right and bottom ones.
    @Test func aRectHoldsItsTopLeftEdgesOnly() {
        let rect = Rect(x: 10, y: 20, width: 30, height: 40)
        #expect(rect.contains(Point(x: 10, y: 20)) && rect.contains(Point(x: 39.9, y: 59.9)))
        #expect(!rect.contains(Point(x: 40, y: 30)) && !rect.contains(Point(x: 20, y: 60)) && !rect.contains(Point(x: 9.9, y: 30)))
    }
}
