// Fuzz targets over what hostile input reaches first: image decoding (headers,
// the libjpeg and OpenCV decoders, PNG chunk checks) and the command line's
// geometry values. Built with `-sanitize=fuzzer -DFUZZING` (`make fuzz`) this
// is a libFuzzer target; built plainly it replays files, so that the
// committed corpus and every crash reproducer run in `make test`.
//
//   FACECAM_FUZZ=decoders|geometry facecam-fuzz [libFuzzer options] CORPUS...   (fuzzing)
//   facecam-fuzz decoders|geometry FILE...                                     (replaying)
import FaceCam

#if canImport(Glibc)
import Glibc
#endif

/// Decoding must end in a frame or a FaceCamError, never a crash, within a small pixel limit.
func fuzzDecoders(_ bytes: [UInt8]) {
    guard let frame = try? ImageFile.decode(bytes, source: "fuzz", maximumPixels: 4_000_000).frame else { return }
    precondition(frame.width > 0 && frame.height > 0 && frame.width * frame.height <= 4_000_000)
}

/// Lines of text as geometry options (frame, aperture, orientation, preview, gravity, rect): each
/// value parses or is refused, and a geometry that is accepted maps the rect to finite numbers.
func fuzzGeometry(_ bytes: [UInt8]) {
    let fields = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func field(_ index: Int) -> String { index < fields.count ? fields[index] : "" }
    guard let frame = PixelSize(argument: field(0)), frame.width > 0, frame.height > 0,
          frame.width <= GeometryLimits.coordinate, frame.height <= GeometryLimits.coordinate,
          let rect = Rect(argument: field(5)), rect.isWithinLimits
    else { return }
    let aperture = PixelRect(argument: field(1))
    if let aperture, !aperture.isWithinLimits { return }
    let preview = PixelSize(argument: field(3))
    if let preview, !(1...GeometryLimits.previewSide).contains(preview.width) || !(1...GeometryLimits.previewSide).contains(preview.height) {
        return
    }
    let settings = GeometrySettings(
        aperture: aperture, orientation: Orientation(argument: field(2)) ?? .up, mirrored: field(4).hasPrefix("m"),
        previewSize: preview, gravity: Gravity(rawValue: field(4).trimmingCharacters(in: ["m"])) ?? .aspect)
    guard let geometry = try? settings.geometry(for: frame) else { return }
    let mapped = geometry.bufferToPreview.apply(rect)
    precondition([mapped.x, mapped.y, mapped.width, mapped.height].allSatisfy(\.isFinite), "\(fields) gave \(mapped)")
}

func target(named name: String) -> (@Sendable ([UInt8]) -> Void)? {
    switch name {
    case "decoders": fuzzDecoders
    case "geometry": fuzzGeometry
    default: nil
    }
}

/// The target FACECAM_FUZZ names, for libFuzzer.
private let fuzzed: @Sendable ([UInt8]) -> Void = {
    let name = getenv("FACECAM_FUZZ").map { String(cString: $0) } ?? "decoders"
    guard let run = target(named: name) else { Replay.fail("FACECAM_FUZZ must be decoders or geometry", status: 64) }
    return run
}()

#if FUZZING
/// libFuzzer's entry point for programs with a main of their own (libclang_rt.fuzzer_no_main).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
#endif

@main
struct Replay {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzed(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        })
        #else
        replay()
        #endif
    }

    static func replay() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let run = target(named: name) else {
            fail("usage: facecam-fuzz decoders|geometry FILE...", status: 64)
        }
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { fail("facecam-fuzz: cannot open \(path)", status: 1) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[..<count] }
            fclose(file)
            run(bytes)
        }
        print("replayed \(arguments.count - 1) files through \(name)")
    }

    static func fail(_ message: String, status: Int32) -> Never {
        let line = Array((message + "\n").utf8)
        _ = write(STDERR_FILENO, line, line.count)
        exit(status)
    }
}
