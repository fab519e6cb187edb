import ArgumentParser
import FaceCam

extension RedactionSettings.Mode: ExpressibleByArgument {}
extension RedactionSettings.Shape: ExpressibleByArgument {}

/// How hidden faces look (redact, and --redact on video and live).
struct MaskOptions: ParsableArguments {
    @Option(help: "The mask's shape: ellipse (the ellipse inscribed in the enlarged box) or box (default: ellipse).")
    var shape: RedactionSettings.Shape?

    @Option(help: ArgumentHelp(
        "Each face's box is enlarged around its centre by this factor before it is hidden (hair, ears, chin), "
            + "from 1 to 4 (default: \(decimal(RedactionSettings.defaultScale))).",
        valueName: "F"))
    var maskScale: Double?

    func validate() throws {
        if let maskScale, !(1...4).contains(maskScale) { throw ValidationError("--mask-scale must be from 1 to 4") }
    }

    /// The options given, which only mean something with a mode.
    var given: [String] {
        (shape != nil ? ["--shape"] : []) + (maskScale != nil ? ["--mask-scale"] : [])
    }

    func settings(mode: RedactionSettings.Mode) -> RedactionSettings {
        RedactionSettings(mode: mode, shape: shape ?? .ellipse, scale: maskScale ?? RedactionSettings.defaultScale)
    }
}

/// --redact for the previews video and live draw: faces hidden instead of outlined.
struct PreviewRedactionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Hide the faces on annotated frames instead of outlining them: blur, pixelate or solid. Tracked faces the "
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
        if !previews.contains(where: \.given) {
            let names = previews.map(\.option)
            // "A", "A or B", "A, B or C".
            let listed = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw ValidationError(
                "--redact hides faces on the frames \(listed) writes or shows; add "
                    + (names.count == 1 ? "it" : "one") + ", or use facecam redact")
        }
    }

    var marking: PreviewMarking {
        guard let redact else { return .outline }
        return .redact(mask.settings(mode: redact), outline: outline)
    }
}
