@testable import FaceCamCLI
import FaceCam
@testable import FaceCamCore
import FaceCamRecognition
@testable import FaceCamServe
import Testing

/// The library says what happened; the command adds what to do in its options. In this process, on
/// errors made by hand: each library line names no option, each advised line adds the one it should.
struct ErrorAdviceTests {
    @Test func theLibrarySaysWhatHappenedAndTheCommandWhatToDo() {
        let corner = PolygonOutside(name: .zone("door"), corner: Point(x: 700, y: 10), previewSize: PixelSize(width: 640, height: 480))
        let cases: [(FaceCamError, library: String, advised: String)] = [
            (.modelNotFound("YuNet", tried: ["/a.onnx"]), "YuNet model not found; tried /a.onnx",
             "YuNet model not found; tried /a.onnx (reinstall facecam, run make models in a source tree, or pass --model the model's path)"),
            (.streamStalled(source: "-", afterFrame: 3, seconds: 10), "-: the stream stalled after frame 3: no frame arrived for 10 s",
             "-: the stream stalled after frame 3: no frame arrived for 10 s (raise --timeout for a slow source)"),
            (.zone(source: "a.jpg", corner), "a.jpg: zone door: the corner 700,10 lies outside the 640x480 preview",
             "a.jpg: --zone door: the corner 700,10 lies outside the 640x480 preview"),
            (.detection(source: "a.jpg", frame: 0, error: .cascadeUnloadable(path: "x.xml", reason: "empty")),
             "a.jpg frame 0: no faces reported, detection failed: cannot load cascade x.xml: empty",
             "a.jpg frame 0: no faces reported, detection failed: cannot load cascade x.xml: empty (pass --cascade a valid cascade XML file)"),
            (.openCV("out of memory"), "OpenCV failed: out of memory", "OpenCV failed: out of memory"),
        ]
        for (error, library, advised) in cases {
            #expect(error.description == library)
            #expect(error.advised == advised)
        }
        #expect(PolygonOutside(name: .mask(2), corner: Point(x: -1, y: 0), previewSize: PixelSize(width: 64, height: 48)).advised
            == "--mask-zone 2: the corner -1,0 lies outside the 64x48 preview")
    }

    /// Errors of the other libraries, through the one function the command reports with.
    @Test func everyLibrarysErrorsGetTheirAdvice() {
        #expect(advised(CaptureError.timeout(path: "/dev/video0", seconds: 5))
            == "/dev/video0 sent no frame for 5 s: check the camera works (`facecam devices`), or raise --timeout")
        #expect(advised(ServeError(address: ServeAddress(port: 80), reason: "address in use"))
            == "cannot serve the preview on 127.0.0.1:80: address in use; name another [HOST:]PORT with --serve (port 0 takes a free one)")
        #expect(advised(GalleryError.notAGallery(path: "notes.txt"))
            == "notes.txt: not a facecam gallery (give --gallery a new file, or one facecam enrol made)")
    }
}
