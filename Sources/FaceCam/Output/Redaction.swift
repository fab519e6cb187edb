internal import CFaceDetect

/// How faces are hidden: what replaces them, in what shape, over how much of the picture.
public struct RedactionSettings: Hashable, Sendable {
    public enum Mode: String, CaseIterable, Sendable {
        /// A blur whose radius grows with the face.
        case blur
        /// Blocks whose size grows with the face.
        case pixelate
        /// Opaque black.
        case solid
        /// A picture (`RedactionSettings.replacement`) stretched over the face, opaque.
        case image
    }

    public enum Shape: String, CaseIterable, Sendable {
        /// The ellipse inscribed in the enlarged box.
        case ellipse
        /// The enlarged box itself.
        case box
    }

    public var mode: Mode
    /// The picture `image` mode lays over faces; nil in the other modes.
    public var replacement: OverlayImage?
    public var shape: Shape
    /// Each face's box is enlarged around its centre by this factor before it is hidden:
    /// detectors' boxes stop at the brow and chin, and hair and ears identify too.
    public var scale: Double

    public static let defaultScale = 1.3

    /// `replacement` is given in `image` mode only.
    public init(mode: Mode = .blur, replacement: OverlayImage? = nil, shape: Shape = .ellipse, scale: Double = RedactionSettings.defaultScale) {
        precondition((mode == .image) == (replacement != nil), "image mode, and it only, has a replacement picture")
        self.mode = mode
        self.replacement = replacement
        self.shape = shape
        self.scale = scale
    }

    /// The region hidden for a face whose box is `box` (any coordinates: preview rects, buffer boxes).
    public func region(for box: Rect) -> Rect {
        let width = box.width * scale, height = box.height * scale
        return Rect(x: box.x + box.width / 2 - width / 2, y: box.y + box.height / 2 - height / 2, width: width, height: height)
    }

    /// How many pixels of a `width` x `height` frame hiding `boxes` changes: those whose centres lie in
    /// one shape or more (the rule cfd_redact applies), overlaps counted once. Row by row, as the union
    /// of each shape's run of pixels on the row.
    public func hiddenPixels(_ boxes: [Rect], width: Int, height: Int) -> Int {
        let regions = boxes.map(region(for:))
        var total = 0
        var runs: [(first: Int, last: Int)] = []
        for row in 0..<height {
            let y = Double(row) + 0.5
            runs.removeAll(keepingCapacity: true)
            for region in regions {
                // The run's ends as x coordinates of pixel centres: [left, right] for an ellipse, [left, right) for a box.
                let first: Int, last: Int
                switch shape {
                case .box:
                    guard y >= region.y, y < region.y + region.height else { continue }
                    first = Int((region.x - 0.5).rounded(.up))
                    last = Int((region.x + region.width - 0.5).rounded(.up)) - 1
                case .ellipse:
                    let dy = (y - (region.y + region.height / 2)) / (region.height / 2)
                    guard dy * dy <= 1 else { continue }
                    let centre = region.x + region.width / 2, half = region.width / 2 * (1 - dy * dy).squareRoot()
                    first = Int((centre - half - 0.5).rounded(.up))
                    last = Int((centre + half - 0.5).rounded(.down))
                }
                let clipped = (max(first, 0), min(last, width - 1))
                if clipped.0 <= clipped.1 { runs.append(clipped) }
            }
            runs.sort { $0.first < $1.first }
            var covered = -1 // the last column counted on this row
            for run in runs where run.last > covered {
                total += run.last - max(run.first, covered + 1) + 1
                covered = run.last
            }
        }
        return total
    }
}

extension Frame {
    /// Hides each face box of `boxes` (in this frame's pixel coordinates) as `settings` says; pixels
    /// outside every enlarged shape are left exactly as they were.
    public mutating func redact(_ boxes: [Rect], settings: RedactionSettings) throws(FaceCamError) {
        guard !boxes.isEmpty else { return }
        let regions = boxes.map { box in
            let region = settings.region(for: box)
            return cfd_region(x: region.x, y: region.y, width: region.width, height: region.height)
        }
        let mode: cfd_redaction_mode = switch settings.mode {
        case .blur: CFD_REDACT_BLUR
        case .pixelate: CFD_REDACT_PIXELATE
        case .solid: CFD_REDACT_SOLID
        case .image: CFD_REDACT_IMAGE
        }
        let shape: cfd_mask_shape = settings.shape == .ellipse ? CFD_MASK_ELLIPSE : CFD_MASK_BOX
        var error = cfd_error()
        let status = if let replacement = settings.replacement {
            replacement.frame.withImageView { view in
                withUnsafePointer(to: &view) { redact(regions, mode: mode, shape: shape, replacement: $0, error: &error) }
            }
        } else {
            redact(regions, mode: mode, shape: shape, replacement: nil, error: &error)
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
    }

    /// cfd_redact on the pixels.
    private mutating func redact(
        _ regions: [cfd_region], mode: cfd_redaction_mode, shape: cfd_mask_shape, replacement: UnsafePointer<cfd_image_view>?,
        error: inout cfd_error
    ) -> cfd_status {
        let (width, height, stride) = (Int32(width), Int32(height), bytesPerRow)
        return pixels.withUnsafeMutableBufferPointer { pixels in
            cfd_redact(pixels.baseAddress, width, height, stride, regions, regions.count, mode, shape, replacement, &error)
        }
    }
}
