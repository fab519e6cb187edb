import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// Limits on what an input may make facecam allocate.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("max-megapixels"), parsing: .unconditional, help: ArgumentHelp(
        "Refuse images and video frames larger than this, read from their headers before anything is decoded "
            + "(default: \(ImageFile.defaultMaximumPixels / 1_000_000) for images, beyond any phone photograph, a "
            + "decompression bomb claiming far more; \(VideoReader.defaultMaximumPixels / 1_000_000) for video frames, "
            + "beyond 8K, since a video's frames in flight and its encoder take several gigabytes above that).",
        valueName: "N"))
    var maxMegapixels: Int?

    func validate() throws {
        if let maxMegapixels, !(1...10_000).contains(maxMegapixels) {
            throw ValidationError("--max-megapixels must be from 1 to 10000")
        }
    }

    var maximumPixels: Int { maxMegapixels.map { $0 * 1_000_000 } ?? ImageFile.defaultMaximumPixels }
    var maximumVideoPixels: Int { maxMegapixels.map { $0 * 1_000_000 } ?? VideoReader.defaultMaximumPixels }
}

/// Streams, and live's camera: how long one may stall.
struct StreamOptions: ParsableArguments {
    @Option(name: .customLong("timeout"), help: ArgumentHelp(
        "Give up on a URL or standard input (in live, the camera too) that sends nothing for this long (default: "
            + "\(decimal(VideoReader.defaultTimeout))).",
        valueName: "seconds"))
    var timeoutOption: Double?
    var timeout: Double { timeoutOption ?? VideoReader.defaultTimeout }

    func validate() throws {
        if let timeoutOption, !(timeoutOption > 0 && timeoutOption <= 86_400) {
            throw ValidationError("--timeout must be more than 0 and at most 86400 s")
        }
    }
}
