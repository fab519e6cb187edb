import FaceCam

/// The pictures a run lays over faces, loaded before any work from the options that name them (which only parse): image
/// mode's --image and --overlay's PNG. One that cannot be used is refused (64).
enum RunPictures {
    /// The masks' settings; in image mode, with --image's picture.
    static func masks(_ options: MaskOptions, mode: RedactionSettings.Mode) throws(Refusal) -> RedactionSettings {
        var replacement: OverlayImage?
        if mode == .image, let image = options.image {
            do {
                replacement = try OverlayImage(path: image, requiringAlpha: false)
            } catch {
                throw .usage("--image \(advised(error))")
            }
        }
        return options.settings(mode: mode, replacement: replacement)
    }

    /// What the frames a run writes or shows carry on faces: --overlay's picture, else --redact's masks (`redaction`, the
    /// commands that take it), else outlines.
    static func marking(overlay: OverlayOptions, redaction: PreviewRedactionOptions? = nil) throws(Refusal) -> PreviewMarking {
        if let path = overlay.overlay {
            do {
                return .overlay(FaceOverlay(
                    image: try OverlayImage(path: path, requiringAlpha: true), anchor: overlay.overlayAnchor ?? OverlayOptions.defaultAnchor,
                    points: overlay.points))
            } catch {
                throw .usage("--overlay \(advised(error))")
            }
        }
        guard let redaction, let mode = redaction.redact else { return .outline }
        return .redact(try masks(redaction.mask, mode: mode), outline: redaction.outline)
    }
}
