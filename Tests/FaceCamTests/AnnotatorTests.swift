import Foundation
import Testing
@testable import FaceCam

struct AnnotatorTests {
    static let grey = BGRA(blue: 128, green: 128, red: 128)
    static let red = BGRA(blue: 0, green: 0, red: 255)
    static let black = BGRA(blue: 0, green: 0, red: 0)
    static let block = PixelRect(x: 16, y: 8, width: 24, height: 16)

    /// A grey 96x48 buffer with `marked` in red.
    static func buffer(marking marked: PixelRect) -> Frame {
        var frame = Frame(width: 96, height: 48)
        for y in 0..<48 {
            for x in 0..<96 { frame.setPixel(x: x, y: y, to: marked.rect.contains(x, y) ? red : grey) }
        }
        return frame
    }

    /// Off-centre, so that a wrong turn or flip moves it, yet inside the preview for every gravity.
    static let marker = PixelRect(x: 30, y: 12, width: 24, height: 14)

    @Test(arguments: Orientation.allCases, Gravity.allCases)
    func previewImageAgreesWithTheGeometry(orientation: Orientation, gravity: Gravity) throws {
        let buffer = Self.buffer(marking: Self.marker)
        for mirrored in [false, true] {
            let geometry = try PreviewGeometry(
                frameSize: buffer.size, orientation: orientation, mirrored: mirrored,
                previewSize: PixelSize(width: 150, height: 120), gravity: gravity)
            let preview = try outlined(buffer, faces: [], geometry: geometry)
            let mapped = geometry.previewRect(of: Self.marker)
            let context = "\(orientation) mirrored \(mirrored) \(gravity)"
            // Inside the marker's preview rect, pixels in from its corners are red...
            #expect(preview.pixel(x: Int(mapped.minX) + 3, y: Int(mapped.minY) + 3) == Self.red, "\(context)")
            #expect(preview.pixel(x: Int(mapped.maxX) - 4, y: Int(mapped.maxY) - 4) == Self.red, "\(context)")
            // ...and just outside it they are grey.
            #expect(preview.pixel(x: Int(mapped.maxX) + 3, y: Int(mapped.midY)) == Self.grey, "\(context)")
            let above = mapped.minY >= 4 ? mapped.minY - 4 : mapped.maxY + 3
            #expect(preview.pixel(x: Int(mapped.midX), y: Int(above)) == Self.grey, "\(context)")
            if gravity == .aspect {
                // Bars outside the video are black.
                let bar = geometry.videoRect.minX > 1 ? (0, 60) : (75, 0)
                #expect(preview.pixel(x: bar.0, y: bar.1) == Self.black, "\(context) bar")
            }
        }
    }

    @Test func outlineSitsJustInsideThePreviewRect() throws {
        // Orientation 6 turns the 96x48 buffer into a 48x96 upright image; mirrored, the block
        // (16, 8)-(40, 24) lands at x 48-(48-8)..48-(48-24) = 8...24, y 16...40; aspect into
        // 96x96 scales by 1 and centres with a 24-pixel bar left and right: (32, 16, 16, 24).
        let geometry = try PreviewGeometry(
            frameSize: PixelSize(width: 96, height: 48), orientation: .right, mirrored: true,
            previewSize: PixelSize(width: 96, height: 96), gravity: .aspect)
        let face = Face(box: Self.block, preview: geometry.previewRect(of: Self.block))
        #expect(face.preview == Rect(x: 32, y: 16, width: 16, height: 24))
        let preview = try outlined(Self.buffer(marking: Self.block), faces: [face], geometry: geometry)
        let green = Annotator.outlineColour
        #expect(Annotator.outlineWidth(for: geometry.previewSize) == 2)
        for (x, y) in [(32, 16), (33, 17), (47, 39), (46, 38), (40, 16), (40, 17), (32, 28), (47, 28), (40, 39)] {
            #expect(preview.pixel(x: x, y: y) == green, "(\(x), \(y))")
        }
        for (x, y) in [(34, 18), (40, 28), (31, 28), (48, 28), (40, 15), (40, 40)] {
            #expect(preview.pixel(x: x, y: y) != green, "(\(x), \(y))")
        }
    }

    @Test func savedJPEGShowsTheOutlineOnTheFace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-annotate-\(getpid())/new")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let frame = try ImageFile.load(fixture("orientations/portrait-8.jpg")).frame
        let geometry = try PreviewGeometry(
            frameSize: frame.size, orientation: .left, previewSize: PixelSize(width: 640, height: 480), gravity: .aspect)
        let faces = try FaceDetector(cascade: Cascade(resolving: Cascade.defaultName)).detect(in: frame, geometry: geometry)
        #expect(faces.count == 1)
        var annotator = try Annotator(directory: directory.path)
        let preview = try outlined(frame, faces: faces, geometry: geometry)
        let first = try annotator.save(preview, name: "portrait-8")
        let second = try annotator.save(preview, name: "portrait-8")
        #expect(first == directory.path + "/portrait-8.jpg")
        #expect(second == directory.path + "/portrait-8-2.jpg")

        let saved = try ImageFile.load(first).frame
        #expect(saved.size == PixelSize(width: 640, height: 480))
        let p = faces[0].preview
        let inset = Double(Annotator.outlineWidth(for: saved.size)) / 2
        let edges = [
            (p.midX, p.minY + inset), (p.midX, p.maxY - inset), (p.minX + inset, p.midY), (p.maxX - inset, p.midY),
        ]
        for (x, y) in edges {
            let pixel = saved.pixel(x: Int(x), y: Int(y))
            #expect(pixel.green > 180 && pixel.red < 110 && pixel.blue < 110, "(\(x), \(y)): \(pixel)")
        }
        // The face itself is not painted over.
        let centre = saved.pixel(x: Int(p.midX), y: Int(p.midY))
        #expect(!(centre.green > 180 && centre.red < 110 && centre.blue < 110))
    }
}

extension Rect {
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }

    func contains(_ px: Int, _ py: Int) -> Bool {
        Double(px) >= minX && Double(px) < maxX && Double(py) >= minY && Double(py) < maxY
    }
}

/// The preview as annotated JPEGs show it: rendered, then the faces outlined.
func outlined(_ frame: Frame, faces: [Face], geometry: PreviewGeometry) throws -> Frame {
    var preview = try Annotator.render(frame, geometry: geometry, source: "test")
    try Annotator.mark(&preview, with: PreviewMarks(faces: faces), as: .outline)
    return preview
}
