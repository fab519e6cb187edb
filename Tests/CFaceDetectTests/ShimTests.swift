import CFaceDetect
import Foundation
import Testing

let cascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

extension cfd_error {
    var text: String { withUnsafeBytes(of: message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
}

/// A BGRA image the shim decoded.
struct Decoded {
    var pixels: [UInt8]
    var width: Int32
    var height: Int32
    var stride: Int { Int(width) * 4 }
}

/// Decodes a fixture of a known size through the shim.
func decodeFixture(_ name: String, width: Int32, height: Int32) throws -> Decoded {
    let data = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    var image = Decoded(pixels: [UInt8](repeating: 0, count: Int(width * height) * 4), width: width, height: height)
    var error = cfd_error()
    let status = data.withUnsafeBufferPointer { source in
        image.pixels.withUnsafeMutableBufferPointer {
            cfd_decode_image_into(source.baseAddress, source.count, $0.baseAddress, width, height, Int(width) * 4, &error)
        }
    }
    try #require(status == CFD_OK, "\(error.text)")
    return image
}

struct ShimTests {
    @Test func detectsTheAstronautsFaceWhereOpenCVDoes() throws {
        var error = cfd_error()
        let detector = try #require(cfd_detector_create(cascadePath, &error))
        defer { cfd_detector_destroy(detector) }
        let image = try decodeFixture("images/astronaut.png", width: 512, height: 512)
        var params = cfd_params(scale_factor: 1.1, min_neighbors: 3, min_width: 30, min_height: 30, max_width: 0, max_height: 0)
        var faces = cfd_rects()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            var view = cfd_image_view(pixels: pixels.baseAddress, width: image.width, height: image.height, stride: image.stride)
            return cfd_detect(detector, &view, cfd_rect(x: 0, y: 0, width: 512, height: 512), 1, &params, &faces, &error)
        }
        defer { cfd_rects_free(&faces) }
        #expect(status == CFD_OK)
        // Fixtures/expectations.jsonl: OpenCV finds [178, 69, 92, 92].
        try #require(faces.count == 1)
        #expect(faces.rects[0].x == 178 && faces.rects[0].y == 69 && faces.rects[0].width == 92 && faces.rects[0].height == 92)
    }

    /// cfd_search_in_place sees what a search of the whole frame sees: over the whole frame and
    /// around each face (half its size on every side, faces of half to twice its size), it gives
    /// exactly the boxes OpenCV's detectMultiScale gives for the whole image (Fixtures/expectations.jsonl),
    /// with and without an aperture (whose boxes differ: the scaled images do).
    @Test(arguments: [
        (cfd_rect(x: 0, y: 0, width: 1024, height: 512), [cfd_rect(x: 176, y: 66, width: 96, height: 96), cfd_rect(x: 673, y: 90, width: 215, height: 215)]),
        (cfd_rect(x: 100, y: 40, width: 800, height: 450), [cfd_rect(x: 176, y: 65, width: 98, height: 98), cfd_rect(x: 669, y: 94, width: 213, height: 213)]),
    ])
    func searchInPlaceGivesTheWholeFramesBoxes(aperture: cfd_rect, expected: [cfd_rect]) throws {
        var error = cfd_error()
        let detector = try #require(cfd_detector_create(cascadePath, &error))
        defer { cfd_detector_destroy(detector) }
        let image = try decodeFixture("images/two-faces.jpg", width: 1024, height: 512)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            var view = cfd_image_view(pixels: pixels.baseAddress, width: image.width, height: image.height, stride: image.stride)
            return cfd_prepare(detector, &view, aperture, 1, &error)
        }
        try #require(status == CFD_OK, "\(error.text)")
        // In the aperture's coordinates, as the detector sees it.
        let faces = expected.map { cfd_rect(x: $0.x - aperture.x, y: $0.y - aperture.y, width: $0.width, height: $0.height) }
        func inPlace(_ region: cfd_rect, sizes: ClosedRange<Int32>) throws -> [cfd_rect] {
            var params = cfd_params(scale_factor: 1.1, min_neighbors: 3, min_width: sizes.lowerBound, min_height: sizes.lowerBound,
                                    max_width: sizes.upperBound, max_height: sizes.upperBound)
            var rects = cfd_rects()
            try #require(cfd_search_in_place(detector, region, &params, &rects, &error) == CFD_OK, "\(error.text)")
            defer { cfd_rects_free(&rects) }
            return Array(UnsafeBufferPointer(start: rects.rects, count: rects.count))
        }
        let key = { (rect: cfd_rect) in [rect.x, rect.y, rect.width, rect.height] }
        let whole = try inPlace(cfd_rect(x: 0, y: 0, width: aperture.width, height: aperture.height), sizes: 30...Int32.max)
        #expect(Set(whole.map(key)) == Set(faces.map(key)))
        for face in faces {
            let margin = face.width / 2
            let around = cfd_rect(x: face.x - margin, y: face.y - margin, width: face.width + 2 * margin, height: face.height + 2 * margin)
            let found = try inPlace(around, sizes: max(30, face.width / 2)...(face.width * 2))
            #expect(found.map(key) == [key(face)], "around \(face)")
        }
        // A region too small for any window, and one outside the frame, hold no face.
        #expect(try inPlace(cfd_rect(x: 10, y: 10, width: 12, height: 12), sizes: 30...Int32.max).isEmpty)
        #expect(try inPlace(cfd_rect(x: -500, y: 0, width: 100, height: 100), sizes: 30...Int32.max).isEmpty)
    }

    @Test func missingAndMalformedCascadesAreErrorsNotExceptions() throws {
        var error = cfd_error()
        #expect(cfd_detector_create("/nonexistent/cascade.xml", &error) == nil)
        #expect(error.status == CFD_ERROR_CASCADE)
        // An XML file OpenCV's parser rejects raises cv::Exception inside load().
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("broken-cascade-\(getpid()).xml")
        try Data("<?xml version=\"1.0\"?><opencv_storage><cascade><stageType>".utf8).write(to: broken)
        defer { try? FileManager.default.removeItem(at: broken) }
        error = cfd_error()
        #expect(cfd_detector_create(broken.path, &error) == nil)
        #expect(error.status == CFD_ERROR_CASCADE || error.status == CFD_ERROR_OPENCV)
        #expect(!error.text.isEmpty)
    }

    /// The shim finds a model's decoder by the id Swift's `FaceModelKind` gives it; any other id is a
    /// bad argument, not a model that fails to load.
    @Test func modelsAreFoundByTheirRegisteredID() throws {
        let yunet = fixtures.deletingLastPathComponent()
            .appendingPathComponent("Sources/FaceCam/Resources/YuNet/face_detection_yunet_2022mar.onnx").path
        var params = cfd_model_params(score_threshold: 0.9, nms_threshold: 0.3, top_k: 5000)
        var engine = cfd_engine_settings(engine: CFD_ENGINE_OPENCV, precision: CFD_PRECISION_F32, threads: 1)
        var error = cfd_error()
        let model = try #require(cfd_model_create("yunet", yunet, &params, &engine, &error), "\(error.text)")
        cfd_model_destroy(model)
        for id in ["YuNet", "yunet ", "", "haar"] {
            error = cfd_error()
            #expect(cfd_model_create(id, yunet, &params, &engine, &error) == nil)
            #expect(error.status == CFD_ERROR_INVALID_ARGUMENT && error.text == "unknown model kind", "\(id): \(error.text)")
        }
        error = cfd_error()
        #expect(cfd_model_create(nil, yunet, &params, &engine, &error) == nil)
        #expect(error.status == CFD_ERROR_INVALID_ARGUMENT)
    }

    @Test func invalidArgumentsAreRefused() throws {
        var error = cfd_error()
        let detector = try #require(cfd_detector_create(cascadePath, &error))
        defer { cfd_detector_destroy(detector) }
        let pixels = [UInt8](repeating: 0, count: 16 * 16 * 4)
        var faces = cfd_rects()
        var params = cfd_params(scale_factor: 1.1, min_neighbors: 3, min_width: 0, min_height: 0, max_width: 0, max_height: 0)
        func detect(_ aperture: cfd_rect, _ orientation: Int32) -> cfd_status {
            pixels.withUnsafeBufferPointer { buffer in
                var view = cfd_image_view(pixels: buffer.baseAddress, width: 16, height: 16, stride: 64)
                return cfd_detect(detector, &view, aperture, orientation, &params, &faces, &error)
            }
        }
        #expect(detect(cfd_rect(x: 8, y: 0, width: 16, height: 16), 1) == CFD_ERROR_INVALID_ARGUMENT)
        #expect(error.text == "aperture is not inside the image")
        #expect(detect(cfd_rect(x: 0, y: 0, width: 16, height: 16), 9) == CFD_ERROR_INVALID_ARGUMENT)
        params.scale_factor = 1.0
        #expect(detect(cfd_rect(x: 0, y: 0, width: 16, height: 16), 1) == CFD_ERROR_INVALID_ARGUMENT)
        #expect(error.text == "scale factor must be greater than 1")
        params.scale_factor = 1.1
        #expect(detect(cfd_rect(x: 0, y: 0, width: 16, height: 16), 1) == CFD_OK)
        #expect(faces.count == 0)
        var rects = cfd_rects()
        #expect(cfd_search_in_place(nil, cfd_rect(x: 0, y: 0, width: 16, height: 16), &params, &rects, &error) == CFD_ERROR_INVALID_ARGUMENT)
        let fresh = try #require(cfd_detector_create(cascadePath, &error))
        defer { cfd_detector_destroy(fresh) }
        #expect(cfd_search_in_place(fresh, cfd_rect(x: 0, y: 0, width: 16, height: 16), &params, &rects, &error) == CFD_ERROR_INVALID_ARGUMENT)
        #expect(error.text == "no prepared frame")
        // maxSize smaller than minSize: OpenCV's own check raises, and it comes back as a status.
        params.min_width = 50; params.min_height = 50; params.max_width = 20; params.max_height = 20
        let status = detect(cfd_rect(x: 0, y: 0, width: 16, height: 16), 1)
        #expect(status == CFD_OK || status == CFD_ERROR_OPENCV)
    }

    @Test func undecodableBytesAreADecodeError() {
        var pixels = [UInt8](repeating: 0, count: 64)
        var error = cfd_error()
        let bytes: [UInt8] = Array("definitely not an image".utf8)
        #expect(bytes.withUnsafeBufferPointer { cfd_decode_image_into($0.baseAddress, $0.count, &pixels, 4, 4, 16, &error) } == CFD_ERROR_DECODE)
        #expect(cfd_decode_image_into(nil, 0, &pixels, 4, 4, 16, &error) == CFD_ERROR_DECODE)
    }

    @Test func anImageOfAnotherSizeThanAnnouncedIsRefused() throws {
        let data = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent("images/chelsea.png")))
        var pixels = [UInt8](repeating: 0, count: 16 * 16 * 4)
        var error = cfd_error()
        let status = data.withUnsafeBufferPointer { cfd_decode_image_into($0.baseAddress, $0.count, &pixels, 16, 16, 64, &error) }
        #expect(status == CFD_ERROR_DECODE)
        #expect(error.text == "the image is not the size its header announced")
    }

    @Test func warpWithTheIdentityCopiesTheApertureAndPaintsTheRestBlack() throws {
        let image = try decodeFixture("images/chelsea.png", width: 451, height: 300)
        // A 20x10 aperture at (5, 7), drawn into 30x10: the last 10 columns fall outside it.
        var out = [UInt8](repeating: 7, count: 30 * 10 * 4)
        var error = cfd_error()
        let identity: [Double] = [1, 0, 0, 1, 0, 0]
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            var view = cfd_image_view(pixels: pixels.baseAddress, width: image.width, height: image.height, stride: image.stride)
            return cfd_warp_affine(&view, cfd_rect(x: 5, y: 7, width: 20, height: 10), identity, &out, 30, 10, 120, &error)
        }
        #expect(status == CFD_OK, "\(error.text)")
        for y in 0..<10 {
            for x in 0..<30 {
                let o = y * 120 + x * 4
                let source = (y + 7) * image.stride + (x + 5) * 4
                let expected: [UInt8] = x < 20 ? (0..<4).map { image.pixels[source + $0] } : [0, 0, 0, 255]
                #expect(Array(out[o..<o + 4]) == expected, "(\(x), \(y))")
            }
        }
    }
}

struct WindowShimTests {
    @Test func highguiIsFoundBesideTheLinkedOpenCVWithoutBeingLinked() {
        // libopencv-dev brings highgui, so the shim must find it, though facecam does not link it.
        var error = cfd_error()
        #expect(cfd_window_available(&error) == CFD_OK, "\(error.text)")
        // RTLD_NOLOAD: only asks whether it is loaded now.
        #expect(dlopen("libopencv_highgui.so.406", RTLD_NOLOAD | RTLD_LAZY) != nil, "loaded by cfd_window_available")
    }

    @Test func badArgumentsAreRefusedBeforeAnyWindowIsMade() {
        var error = cfd_error()
        #expect(cfd_window_open(nil, 10, 10, &error) == CFD_ERROR_INVALID_ARGUMENT)
        #expect(cfd_window_open("facecam", 0, 10, &error) == CFD_ERROR_INVALID_ARGUMENT)
        #expect(cfd_window_show("facecam", nil, &error) == CFD_ERROR_INVALID_ARGUMENT)
        var key: Int32 = 0
        #expect(cfd_window_poll("facecam", 1, &key, nil, &error) == CFD_ERROR_INVALID_ARGUMENT)
    }
}

struct ChangedRegionTests {
    /// A grey 320x240 BGRA frame, with a white square at `square` when given.
    private func prepare(_ detector: OpaquePointer, square: cfd_rect?, width: Int32 = 320) -> cfd_status {
        var pixels = [UInt8](repeating: 100, count: Int(width) * 240 * 4)
        if let square {
            for y in square.y..<(square.y + square.height) {
                for x in square.x..<(square.x + square.width) {
                    for channel in 0..<3 { pixels[(Int(y) * Int(width) + Int(x)) * 4 + channel] = 255 }
                }
            }
        }
        var error = cfd_error()
        return pixels.withUnsafeBufferPointer { buffer in
            var view = cfd_image_view(pixels: buffer.baseAddress, width: width, height: 240, stride: Int(width) * 4)
            return cfd_prepare(detector, &view, cfd_rect(x: 0, y: 0, width: width, height: 240), 1, &error)
        }
    }

    private func regions(_ detector: OpaquePointer, ignoring ignored: [cfd_rect] = []) -> [cfd_rect] {
        var rects = cfd_rects()
        var error = cfd_error()
        let status = ignored.withUnsafeBufferPointer { cfd_changed_regions(detector, 40, $0.baseAddress, $0.count, &rects, &error) }
        #expect(status == CFD_OK)
        defer { cfd_rects_free(&rects) }
        return Array(UnsafeBufferPointer(start: rects.rects, count: rects.count))
    }

    @Test func aSquareThatAppearsIsOneRegionAroundIt() throws {
        var error = cfd_error()
        let detector = try #require(cfd_detector_create(cascadePath, &error))
        defer { cfd_detector_destroy(detector) }
        // Nothing is compared until asked for.
        #expect(prepare(detector, square: nil) == CFD_OK)
        #expect(prepare(detector, square: cfd_rect(x: 96, y: 64, width: 48, height: 40)) == CFD_OK)
        #expect(regions(detector).isEmpty, "not watching changes")
        cfd_watch_changes(detector)
        #expect(prepare(detector, square: nil) == CFD_OK)
        #expect(regions(detector).isEmpty, "no earlier frame")
        let square = cfd_rect(x: 96, y: 64, width: 48, height: 40)
        #expect(prepare(detector, square: square) == CFD_OK)
        let found = regions(detector)
        try #require(found.count == 1)
        // The square's 8x8 cells (x 96..143, y 64..103), grown by one cell on each side.
        #expect(found[0].x == 88 && found[0].y == 56 && found[0].width == 64 && found[0].height == 56, "\(found[0])")
        // The cells an ignored rect touches are left out.
        #expect(regions(detector, ignoring: [cfd_rect(x: 90, y: 60, width: 60, height: 50)]).isEmpty)
        // Nothing changed between two alike frames; a frame of another size has nothing to compare with.
        #expect(prepare(detector, square: square) == CFD_OK)
        #expect(regions(detector).isEmpty)
        #expect(prepare(detector, square: square, width: 160) == CFD_OK)
        #expect(regions(detector).isEmpty)
    }
}
