import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// Fast mode: `video` and `live` only, since it follows faces from frame to frame.
struct FastModeOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Fast mode (docs/reference/tracking.md). Haar: full searches on a shrunk frame every few frames, and between them only around "
            + "the faces already found. \(DetectorKind.networkNames): every frame searched shrunk to --detect-width when that at least "
            + "halves its pixels."))
    var fast = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --fast, all detectors: the width frames are shrunk to for searching (default: \(FastSettings().detectWidth)). YuNet and CenterFace shrink "
            + "only frames at least 1.41 times as wide (half the pixels or fewer).", valueName: "W"))
    var detectWidth: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --fast, Haar: a full search at least every N frames, and whenever a face is lost (default: \(FastSettings().fullSearchEvery)).",
        valueName: "N"))
    var fullSearchEvery: Int?

    func validate() throws {
        if !fast, let option = [("--detect-width", detectWidth != nil), ("--full-search-every", fullSearchEvery != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes fast mode: add --fast, or leave \(option) out")
        }
        if let detectWidth, detectWidth < 40 { throw ValidationError("--detect-width must be 40 or more") }
        if let fullSearchEvery, fullSearchEvery < 1 { throw ValidationError("--full-search-every must be 1 or more") }
    }

    /// A DNN detector's fast mode has no full searches to space out.
    func validate(with detector: DetectorOptions) throws {
        if fullSearchEvery != nil, !detector.kind.fastModeFollowsFaces, let model = detector.kind.model {
            throw ValidationError(
                "--full-search-every is an option of the haar detector's fast mode: \(model.name) searches every frame; leave it out")
        }
    }

    /// The settings, or nil without --fast.
    var settings: FastSettings? {
        guard fast else { return nil }
        let defaults = FastSettings()
        return FastSettings(
            detectWidth: detectWidth ?? defaults.detectWidth, fullSearchEvery: fullSearchEvery ?? defaults.fullSearchEvery)
    }
}
