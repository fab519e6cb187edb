import ArgumentParser
import FaceCam

struct Map: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Map a rect from frame (buffer) coordinates to preview coordinates.",
        discussion: "Prints the preview rect as one line: x y w h." + guidePointer("docs/reference/geometry.md", manual: "facecam-map"))

    @Option(help: ArgumentHelp("The frame's size.", valueName: "WxH"))
    var frame: PixelSize

    @Option(parsing: .unconditional, help: ArgumentHelp("The rect in frame coordinates (plain decimals, fractions allowed).", valueName: "x,y,w,h"))
    var rect: Rect

    @OptionGroup(title: "Geometry") var geometry: GeometryOptions

    func validate() throws {
        try geometry.refuseAutomaticOrientation(in: "map")
        guard frame.width > 0, frame.height > 0 else { throw ValidationError("--frame \(frame) is empty") }
        let limit = GeometryLimits.coordinate
        guard frame.width <= limit, frame.height <= limit else {
            throw ValidationError("--frame \(frame) is too large: at most \(limit) a side")
        }
        guard rect.isWithinLimits else {
            throw ValidationError("--rect is out of range: each value from -\(limit) to \(limit)")
        }
        guard rect.width >= 0, rect.height >= 0 else {
            throw ValidationError("--rect must have a width and height of 0 or more")
        }
        do {
            _ = try geometry.settings.geometry(for: frame)
        } catch {
            throw ValidationError("--\(error.option.rawValue): \(error.description)")
        }
    }

    func run() throws {
        try writeResult(try line() + "\n")
    }

    /// The preview rect as printed: x y w h, plain decimals.
    func line() throws -> String {
        let mapped = try geometry.settings.geometry(for: frame).bufferToPreview.apply(rect)
        return [mapped.x, mapped.y, mapped.width, mapped.height].map(decimal).joined(separator: " ")
    }
}
