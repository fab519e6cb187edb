import ArgumentParser
import FaceCam

extension RedactionSettings.Mode: ExpressibleByArgument {}
extension RedactionSettings.Shape: ExpressibleByArgument {}

/// How hidden faces look (redact, and --redact on video and live).
struct MaskOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The mask's shape: ellipse (the ellipse inscribed in the enlarged box) or box (default: \(Self.defaultShape.rawValue))."))
    var shape: RedactionSettings.Shape?

    static let defaultShape = RedactionSettings.Shape.ellipse

    @Option(help: ArgumentHelp(
        "Each face's box is enlarged around its centre by this factor before it is hidden (hair, ears, chin), "
            + "from 1 to 4 (default: \(decimal(RedactionSettings.defaultScale))).",
        valueName: "F"))
    var maskScale: Double?

    @Option(help: ArgumentHelp(
        "Image mode: the picture stretched over each face's mask, opaque whatever its transparency (up to \(OverlayImage.maximumMegapixels) megapixels).",
        valueName: "file"))
    var image: String?

    func validate() throws {
        if let maskScale, !(1...4).contains(maskScale) { throw ValidationError("--mask-scale must be from 1 to 4") }
    }

    /// The options given, which only mean something with a mode.
    var given: [String] {
        (shape != nil ? ["--shape"] : []) + (maskScale != nil ? ["--mask-scale"] : []) + (image != nil ? ["--image"] : [])
    }

    /// `option` (--mode, --redact) gave `mode`: image mode, and it only, takes --image.
    func validate(mode: RedactionSettings.Mode, option: String) throws {
        if mode == .image, image == nil { throw ValidationError("\(option) image lays a picture over faces: give it with --image FILE") }
        if mode != .image, image != nil {
            throw ValidationError("--image is the picture of \(option) image: add \(option) image, or leave --image out")
        }
    }

    /// The settings, with image mode's `replacement` picture (`RunPictures` loads it).
    func settings(mode: RedactionSettings.Mode, replacement: OverlayImage?) -> RedactionSettings {
        RedactionSettings(mode: mode, replacement: replacement, shape: shape ?? Self.defaultShape, scale: maskScale ?? RedactionSettings.defaultScale)
    }
}

/// --redact for the previews video and live draw: faces hidden instead of outlined.
struct PreviewRedactionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Hide the faces on annotated frames instead of outlining them: blur, pixelate, solid or image (--image). Tracked faces the "
            + "detector misses for up to --track-grace frames stay hidden where they are predicted to be.",
        valueName: "mode"))
    var redact: RedactionSettings.Mode?

    @Flag(help: "With --redact, outline the faces too.")
    var outline = false

    @OptionGroup var mask: MaskOptions

    /// --redact changes what a preview shows, so it needs a preview: one of `previews` (option, given).
    func validate(previews: [(option: String, given: Bool)]) throws {
        guard redact != nil else {
            if let option = (outline ? ["--outline"] : []).first ?? mask.given.first {
                throw ValidationError("\(option) goes with --redact MODE; add it, or leave \(option) out")
            }
            return
        }
        try mask.validate(mode: redact!, option: "--redact")
        if !previews.contains(where: \.given) {
            throw ValidationError("--redact hides faces on the frames \(listed(previews.map(\.option), "or")) writes or shows; add "
                + (previews.count == 1 ? "it" : "one") + ", or use facecam redact")
        }
    }
}

/// The options of `previews` as a sentence lists them: "A", "A or B", "A, B or C".
/// "a", "a or b", "a, b or c" (with `conjunction` "or").
func listed(_ names: [String], _ conjunction: String) -> String {
    names.count > 1 ? names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last! : names.joined()
}

extension ResultFormat {
    /// The formats `included` takes, "jsonl, csv or text", for messages that say which to use.
    static func names(where included: (ResultFormat) -> Bool) -> String {
        listed(allCases.filter(included).map(\.rawValue), "or")
    }
}

extension FaceOverlay.Anchor: ExpressibleByArgument {}

/// --overlay: a picture laid on each face of the frames written or shown (detect, video, live).
struct OverlayOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Lay this picture (a PNG with transparency, up to \(OverlayImage.maximumMegapixels) megapixels) on each face of the frames written or shown, instead of "
            + "outlining it: scaled to the face and turned with it (\(DetectorKind.networkNames)).",
        valueName: "png"))
    var overlay: String?

    @Option(help: ArgumentHelp(
        "With --overlay: the face's landmarks the picture's two points go onto: eyes, or mouth (its corners) (default: \(Self.defaultAnchor.rawValue)).",
        valueName: "eyes|mouth"))
    var overlayAnchor: FaceOverlay.Anchor?

    static let defaultAnchor = FaceOverlay.Anchor.eyes

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --overlay: the picture's two points, in its pixels, that go onto the anchor's (the one on the left first) "
            + "(default: \(Self.describeDefaultPoints(.eyes)) for eyes; \(Self.describeDefaultPoints(.mouth)) for mouth).",
        valueName: "x1,y1,x2,y2"))
    var overlayPoints: String?

    /// "30% and 70% across, 40% down": where the anchor's default points are on the picture.
    private static func describeDefaultPoints(_ anchor: FaceOverlay.Anchor) -> String {
        let shares = FaceOverlay.defaultShares(anchor: anchor)
        let percent = { (share: Double) in "\(Int((share * 100).rounded()))%" }
        return "\(percent(shares[0].x)) and \(percent(shares[1].x)) across, "
            + (shares[0].y == 1 ? "at the bottom edge" : "\(percent(shares[0].y)) down")
    }

    /// The points given, parsed (checked in `validate`); nil when not given.
    var points: [Point]? { try? parsedPoints() }

    private func parsedPoints() throws -> [Point]? {
        guard let overlayPoints else { return nil }
        let numbers = overlayPoints.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, let values = numbers as? [Double], values.allSatisfy({ abs($0) <= 100_000 }) else {
            throw ValidationError("--overlay-points takes four numbers from -100000 to 100000, x1,y1,x2,y2, such as 30,40,70,40")
        }
        let (dx, dy) = (values[2] - values[0], values[3] - values[1])
        guard (dx * dx + dy * dy).squareRoot() >= 1 else {
            throw ValidationError("--overlay-points gives two points less than a pixel apart: give two points apart")
        }
        return [Point(x: values[0], y: values[1]), Point(x: values[2], y: values[3])]
    }

    /// An overlay needs frames to go on, one of `previews`, and landmarks; it replaces --redact's masks.
    func validate(previews: [(option: String, given: Bool)], detector: DetectorOptions, redacting: Bool) throws {
        guard overlay != nil else {
            if let option = [("--overlay-anchor", overlayAnchor != nil), ("--overlay-points", overlayPoints != nil)].first(where: \.1)?.0 {
                throw ValidationError("\(option) says where --overlay goes; add --overlay PNG, or leave \(option) out")
            }
            return
        }
        _ = try parsedPoints()
        if redacting { throw ValidationError("--overlay and --redact both say what covers the faces: choose one") }
        if !detector.kind.givesScoresAndLandmarks {
            throw ValidationError("--overlay is placed on the landmarks the \(detector.kind.id) detector does not give: add --detector yunet")
        }
        if !previews.contains(where: \.given) {
            throw ValidationError("--overlay goes on the frames \(listed(previews.map(\.option), "or")) writes or shows; add " + (previews.count == 1 ? "it" : "one"))
        }
    }
}
