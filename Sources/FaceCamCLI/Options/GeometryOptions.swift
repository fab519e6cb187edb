import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// Where the frame's content appears: aperture, orientation, mirroring, preview and gravity.
struct GeometryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Clean aperture: the part of the frame that is shown and searched (default: the whole frame).",
        valueName: "x,y,w,h"))
    var aperture: PixelRect?

    @Option(help: ArgumentHelp(
        "How the frame must be turned to be upright: an EXIF orientation 1-8 or its name (up, up-mirrored, down, "
            + "down-mirrored, left-mirrored, right, right-mirrored, left); or auto, a file's own EXIF orientation as cv::imread "
            + "applies it (default: auto for files; up for live and map, whose frames carry none). video always applies a "
            + "file's rotation metadata first.",
        valueName: "auto|1-8|name"))
    var orientation: OrientationChoice?

    @Flag(help: "Mirror the preview left to right, as a front camera's preview shows it.")
    var mirror = false

    @Option(help: ArgumentHelp(
        "Preview size that preview rects refer to (default: the upright aperture's size).", valueName: "WxH"))
    var preview: PixelSize?

    @Option(help: "How the video is scaled into the preview: resize (stretch), aspect (fit, bars), fill (cover, crop).")
    var gravity: Gravity = .aspect

    func validate() throws {
        if let aperture, !aperture.isWithinLimits {
            throw ValidationError("--aperture \(aperture) is out of range: each value at most \(GeometryLimits.coordinate)")
        }
        if let preview, preview.width > GeometryLimits.previewSide || preview.height > GeometryLimits.previewSide {
            throw ValidationError("--preview \(preview) is too large: at most \(GeometryLimits.previewSide) a side")
        }
        if let aperture, aperture.width <= 0 || aperture.height <= 0 {
            throw ValidationError("--aperture \(aperture) is empty: give a positive width and height")
        }
        if let aperture, aperture.x < 0 || aperture.y < 0 {
            throw ValidationError("--aperture \(aperture) starts outside the frame: x and y must be 0 or more")
        }
        if let preview, preview.width <= 0 || preview.height <= 0 {
            throw ValidationError("--preview \(preview) is empty: give a positive width and height")
        }
    }

    /// The orientation given; nil for `auto` or none (a file's metadata is then the source's to apply).
    var givenOrientation: Orientation? {
        if case .fixed(let orientation) = orientation { orientation } else { nil }
    }

    var settings: GeometrySettings {
        GeometrySettings(aperture: aperture, orientation: givenOrientation ?? .up, mirrored: mirror, previewSize: preview, gravity: gravity)
    }

    /// The input loop for these settings, with the zones and masks each source is checked against.
    func inputLoop(zones: ZoneFilter? = nil, masks: PrivacyMasks = PrivacyMasks(polygons: [])) -> InputLoop {
        InputLoop(settings: settings, givenOrientation: givenOrientation, zones: zones, masks: masks)
    }

    /// `auto` reads a file's metadata, which `live` and `map` have none of.
    func refuseAutomaticOrientation(in command: String) throws {
        if orientation == .auto {
            throw ValidationError("--orientation auto is for files (detect, video), not \(command): give 1-8 or a name")
        }
    }
}
