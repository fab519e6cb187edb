import Foundation
import Testing
@testable import FaceCam

struct ImageFileTests {
    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(relative)))
    }

    @Test(arguments: ["images/grace_hopper.jpg", "images/two-faces.jpg", "orientations/portrait-6.jpg"])
    func libjpegDecodesExactlyAsOpenCVDoes(_ file: String) throws {
        let data = try Self.bytes(file)
        let ours = try ImageFile.decode(data, source: file).frame
        let openCV = try ImageFile.decodeWithOpenCV(data, size: try JPEG.header(data).size, source: file)
        #expect(ours.size == openCV.size)
        #expect(ours.pixels == openCV.pixels)
    }

    @Test func greyPNGBecomesOpaqueBGRAWithEqualChannels() throws {
        let frame = try ImageFile.load(fixture("images/camera.png")).frame
        #expect(frame.size == PixelSize(width: 512, height: 512))
        let pixel = frame.pixel(x: 100, y: 100)
        #expect(pixel.blue == pixel.green && pixel.green == pixel.red && pixel.alpha == 255)
    }

    @Test func truncatedJPEGIsAnErrorNotAGreyImage() throws {
        let data = try Self.bytes("images/grace_hopper.jpg")
        #expect {
            _ = try ImageFile.decode(Array(data.prefix(data.count / 2)), source: "half.jpg")
        } throws: { error in
            guard case FaceCamError.undecodable(let path, let reason) = error else { return false }
            return path == "half.jpg" && reason.contains("truncated")
        }
    }

    @Test func truncatedPNGIsAnError() throws {
        let data = try Self.bytes("images/astronaut.png")
        #expect {
            _ = try ImageFile.decode(Array(data.prefix(data.count / 2)), source: "half.png")
        } throws: { error in
            "\(error)" == "half.png: not a readable image: truncated PNG (it ends before its IEND chunk)"
        }
    }

    @Test(arguments: [[UInt8](), Array("not an image\n".utf8), [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47]])
    func garbageIsAnErrorNamingTheSource(_ bytes: [UInt8]) {
        #expect {
            _ = try ImageFile.decode(bytes, source: "bad.bin")
        } throws: { error in
            guard case FaceCamError.undecodable(let path, _) = error else { return false }
            return path == "bad.bin" && "\(error)".hasPrefix("bad.bin: not a readable image: ")
        }
    }

    @Test func missingFileNamesTheCallAndPath() {
        #expect {
            _ = try ImageFile.load("/nonexistent/face.jpg")
        } throws: { error in
            "\(error)" == "/nonexistent/face.jpg: cannot read (open: No such file or directory)"
        }
    }

    @Test func directoryListingIsSortedAndFiltersByExtension() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-inputs-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        for name in ["b.PNG", "a.jpg", "notes.txt", ".hidden.jpg", "sub/c.jpeg", "clip.MP4", "sub/d.avi"] {
            try Data().write(to: directory.appendingPathComponent(name))
        }
        let names = { (recursive: Bool) in
            StillImageInputs(paths: [FilePath(directory.path), FilePath("/nonexistent")], recursive: recursive).map { item -> String in
                switch item {
                case .file(let path): String(path.description.dropFirst(directory.path.count + 1))
                case .failure(let error): "\(error)"
                case .empty(let directory): "empty: \(directory)"
                case .passedOver(let passed): "passed over in \(passed.path): \(passed.images) images, \(passed.videos) videos"
                }
            }
        }
        let missing = "/nonexistent: cannot read (stat: No such file or directory)"
        // The videos beside the images are passed over, and said so at the end of the named folder.
        let passed = { (videos: Int) in "passed over in \(directory.path): 0 images, \(videos) videos" }
        #expect(names(false) == ["a.jpg", "b.PNG", passed(1), missing])
        #expect(names(true) == ["a.jpg", "b.PNG", "sub/c.jpeg", passed(2), missing])
        for name in ["clip.MP4", "sub/d.avi"] { try FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        // A named directory that gives nothing is told apart, with what it was searched for and what was not entered.
        let empty = directory.appendingPathComponent("sub/empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("sub/c.jpeg"))
        let described = { (path: String, recursive: Bool) in
            StillImageInputs(paths: [FilePath(path)], recursive: recursive, extensions: ["png"]).map { item -> String in
                switch item {
                case .file(let path): path.description
                case .failure(let error): "\(error)"
                case .empty(let directory): "empty: \(directory)"
                case .passedOver(let passed): "passed over in \(passed.path): \(passed.images) images, \(passed.videos) videos"
                }
            }
        }
        #expect(described(directory.appendingPathComponent("sub").path, false) == [
            "empty: \(directory.path)/sub: no file to read in it (by extension: png); its one subdirectory was not entered"])
        // An empty subdirectory of a directory that gave files goes unmentioned.
        #expect(described(directory.path, true) == ["\(directory.path)/b.PNG", "passed over in \(directory.path): 1 images, 0 videos"])
        // A file named explicitly is taken whatever its extension.
        #expect(StillImageInputs(paths: [FilePath(directory.appendingPathComponent("notes.txt").path)], recursive: false).map { $0 }.count == 1)
    }

    @Test func jpegRoundTripKeepsTheImage() throws {
        var frame = Frame(width: 64, height: 48)
        for y in 0..<48 { for x in 0..<64 { frame.setPixel(x: x, y: y, to: BGRA(blue: UInt8(x * 4), green: UInt8(y * 5), red: 128)) } }
        let decoded = try ImageFile.decode(try JPEG.encode(frame, quality: 95), source: "round trip").frame
        #expect(decoded.size == frame.size)
        let worst = (0..<frame.pixels.count).map { abs(Int(frame.pixels[$0]) - Int(decoded.pixels[$0])) }.max()!
        #expect(worst <= 12)
    }
}

/// Where and how EXIF orientation is read (the fixtures check the result against cv2.imread).
@Suite struct ExifOrientationReadingTests {
    /// A TIFF structure whose first directory holds Orientation = `value` (big-endian, as cameras write it).
    static func exif(_ value: UInt8, type: UInt8 = 3) -> [UInt8] {
        Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, type, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0]
    }

    static func jpeg(app1: [UInt8]) -> [UInt8] {
        let length = app1.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1 + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
    }

    @Test(arguments: 1...8)
    func theTagOfAJPEGsExifSegment(value: Int) {
        #expect(ExifOrientation.inJPEG(Self.jpeg(app1: Array("Exif".utf8) + [0, 0] + Self.exif(UInt8(value))))?.rawValue == value)
    }

    @Test func valuesOutsideOneToEightAndOtherTypesCountAsNone() {
        for value: UInt8 in [0, 9, 255] {
            #expect(ExifOrientation.inJPEG(Self.jpeg(app1: Array("Exif".utf8) + [0, 0] + Self.exif(value))) == nil)
        }
        #expect(ExifOrientation.inJPEG(Self.jpeg(app1: Array("Exif".utf8) + [0, 0] + Self.exif(6, type: 4))) == nil)
    }

    @Test func damagedOrMisplacedMetadataIsIgnored() {
        let good = Array("Exif".utf8) + [0, 0] + Self.exif(6)
        // Cut short at every length: never a crash, and no orientation from half a segment.
        for cut in 0..<good.count {
            let bytes = Array(Self.jpeg(app1: good).prefix(6 + cut))
            #expect(ExifOrientation.inJPEG(bytes) == nil)
        }
        // An APP1 that is not EXIF (XMP), a directory offset past the end, a count beyond the data.
        #expect(ExifOrientation.inJPEG(Self.jpeg(app1: Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Self.exif(6))) == nil)
        var farOffset = Self.exif(6)
        farOffset[7] = 200
        #expect(ExifOrientation.inTIFF(farOffset[...]) == nil)
        var bigCount = Self.exif(6)
        bigCount[8...9] = [0xFF, 0xFF]
        #expect(ExifOrientation.inTIFF(bigCount[...]) == .right)
        // After the first scan, EXIF is not looked for.
        let late: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0, 2] + Self.jpeg(app1: good).dropFirst(2)
        #expect(ExifOrientation.inJPEG(late) == nil)
    }

    @Test func aPNGsExifChunkCountsOnlyBeforeItsImageData() throws {
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("exif/portrait-6.png"))))
        #expect(ExifOrientation.inPNG(png) == .right)
        let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture("images/camera.png"))))
        #expect(ExifOrientation.inPNG(plain) == nil)
    }

    @Test func tiffIsDecodedUprightAndSaysSo() throws {
        let image = try ImageFile.load(fixture("exif/portrait-6.tiff"))
        #expect(image.orientation == .right && image.orientedByDecoder && image.uprightOrientation == .up)
        #expect(image.frame.size == PixelSize(width: 400, height: 512))
        let jpeg = try ImageFile.load(fixture("exif/portrait-6.jpg"))
        #expect(jpeg.orientation == .right && !jpeg.orientedByDecoder && jpeg.uprightOrientation == .right)
        #expect(jpeg.frame.size == PixelSize(width: 512, height: 400))
    }
}
