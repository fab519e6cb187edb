#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// Draws frames as the preview shows them (`render`), with each face's preview rect outlined or
/// hidden (`mark`), and saves them (or faces cut out) as JPEG or PNG files in a directory (`save`).
public struct Annotator: Sendable {
    public static let outlineColour = BGRA(blue: 0, green: 255, red: 0)
    /// The largest preview drawn: 50 megapixels (200 MB), beyond 8K video.
    public static let maximumPreviewPixels = 50_000_000
    /// Landmarks are dots of a colour that stands out against the green outline.
    public static let landmarkColour = BGRA(blue: 0, green: 0, red: 255)

    public let directory: String
    public let quality: Int
    /// The files' extension, "jpg" (libjpeg, at `quality`) or "png" (OpenCV's encoder, lossless).
    public let fileExtension: String
    /// What the files are, for messages: "annotated image", "face crop".
    public let what: String
    private var names = FileNames()

    /// Creates `directory` (and its parents) when missing.
    public init(directory: String, quality: Int = 90, fileExtension: String = "jpg", what: String = "annotated image") throws(SystemError) {
        precondition(["jpg", "png"].contains(fileExtension), "images are saved as JPEG or PNG")
        try makeDirectories(directory)
        self.directory = directory
        self.quality = quality
        self.fileExtension = fileExtension
        self.what = what
    }

    /// How thick outlines are in a preview of `size`: thicker on larger previews.
    public static func outlineWidth(for size: PixelSize) -> Int {
        max(2, min(size.width, size.height) / 160)
    }

    /// The frame as the preview shows it: the aperture reoriented, mirrored
    /// and scaled by the gravity, black outside the video; faces are marked
    /// afterwards (`mark`), once tracking has said where they are. A new
    /// preview over `maximumPreviewPixels` is refused, naming `source`; the
    /// frame itself, when it is the preview, is drawn on whatever its size.
    public static func render(_ frame: Frame, geometry: PreviewGeometry, source: String) throws(FaceCamError) -> Frame {
        let size = geometry.previewSize
        // The whole frame, upright and unscaled, is the frame itself (redaction's common case).
        if geometry.bufferToPreview == .identity, size == frame.size { return frame }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= maximumPreviewPixels else {
            throw .previewTooLarge(source: source, size: size, limit: maximumPreviewPixels)
        }
        // warpAffine maps pixel indices of the destination to pixel indices of the aperture.
        let aperture = geometry.aperture
        let previewToAperture = geometry.bufferToPreview.inverted()!
            .followed(by: .translation(x: -Double(aperture.x), y: -Double(aperture.y)))
        return try frame.warped(to: size, from: aperture, sampling: previewToAperture.onPixelIndices)
    }

    /// The frame rendered as the preview shows it and marked: `render`, then `mark`.
    public static func marked(
        _ frame: Frame, with marks: PreviewMarks, geometry: PreviewGeometry, source: String, as marking: PreviewMarking
    ) throws(FaceCamError) -> Frame {
        var preview = try render(frame, geometry: geometry, source: source)
        try mark(&preview, with: marks, as: marking)
        return preview
    }

    /// Marks faces on a rendered preview: outlines just inside each face's preview rect and its
    /// landmarks as dots; or, redacting, every face hidden, the tracked faces the detector
    /// missed (`marks.predicted`) too, with outlines on top only when `outline` is set.
    public static func mark(_ preview: inout Frame, with marks: PreviewMarks, as marking: PreviewMarking) throws(FaceCamError) {
        let outline: Bool
        switch marking {
        case .outline:
            outline = true
        case .redact(let settings, let alsoOutline):
            try preview.redact(marks.hidden, settings: settings)
            outline = alsoOutline
        case .overlay(let overlay):
            for landmarks in marks.faces.compactMap(\.previewLandmarks) {
                try overlay.place(on: &preview, landmarks: landmarks)
            }
            outline = false
        }
        guard outline else { return }
        let width = outlineWidth(for: preview.size)
        for face in marks.faces {
            preview.drawOutline(face.preview, width: width, colour: outlineColour)
            for point in face.previewLandmarks?.points ?? [] {
                preview.drawDot(at: point, radius: width, colour: landmarkColour)
            }
        }
    }

    /// Saves a rendered preview as `<name>.jpg` (or .png; `<name>-2.jpg`, ... when
    /// that name was already used) and returns the file's path; a full disk or a kill leaves no cut image.
    @discardableResult
    public mutating func save(_ preview: Frame, name: String) throws(FaceCamError) -> String {
        let path = directory + "/" + names.claim(name) + "." + fileExtension
        // Many, and made again by another run: not worth a disk flush each.
        try preview.save(to: path, quality: quality, durably: false, what: what)
        return path
    }
}

/// What is drawn on a preview's faces.
public enum PreviewMarking: Hashable, Sendable {
    /// Each face outlined in green, its landmarks as red dots.
    case outline
    /// Each face hidden; outlined on top too when `outline` is set.
    case redact(RedactionSettings, outline: Bool)
    /// A picture laid on each face with landmarks, instead of its outline.
    case overlay(FaceOverlay)
}

/// The faces to mark on one preview, after tracking.
public struct PreviewMarks: Sendable {
    /// The faces detected in the frame, in preview coordinates as `Face.preview` gives them.
    public var faces: [Face]
    /// Where tracked faces the detector missed should be, their boxes in preview coordinates: only redaction marks these.
    public var predicted: [FaceTracker.Prediction]
    /// Where a plan of the whole video hides faces (redaction's second pass), in preview coordinates.
    public var planned: [Rect]

    public init(faces: [Face], predicted: [FaceTracker.Prediction] = [], planned: [Rect] = []) {
        self.faces = faces
        self.predicted = predicted
        self.planned = planned
    }

    /// What redaction hides: the faces' places, the predicted ones and the planned ones.
    var hidden: [Rect] { faces.map(\.preview) + predicted.map(\.box) + planned }
}

extension PreviewMarks {
    /// The same marks on the frame itself rather than its preview: boxes and landmarks as the
    /// detector gave them, predicted and planned places mapped back from the preview.
    public func inBufferCoordinates(of geometry: PreviewGeometry) -> PreviewMarks {
        let toBuffer = geometry.bufferToPreview.inverted() ?? .identity
        return PreviewMarks(
            faces: faces.map { face in
                var face = face
                face.preview = face.box.rect
                face.previewLandmarks = face.landmarks
                return face
            },
            predicted: predicted.map { predicted in
                var predicted = predicted
                predicted.box = toBuffer.apply(predicted.box)
                return predicted
            },
            planned: planned.map { toBuffer.apply($0) })
    }
}

extension Frame {
    /// Draws a band `width` pixels wide just inside `rect`, clipped to the frame.
    mutating func drawOutline(_ rect: Rect, width: Int, colour: BGRA) {
        let x0 = Int(rect.minX.rounded()), x1 = Int(rect.maxX.rounded())
        let y0 = Int(rect.minY.rounded()), y1 = Int(rect.maxY.rounded())
        let (left, right) = (max(x0, 0), min(x1, self.width))
        let (top, bottom) = (max(y0, 0), min(y1, height))
        guard left < right, top < bottom else { return }
        for y in top..<bottom {
            let onHorizontalEdge = y < y0 + width || y >= y1 - width
            for x in left..<right
            where onHorizontalEdge || x < x0 + width || x >= x1 - width {
                setPixel(x: x, y: y, to: colour)
            }
        }
    }

    /// Fills the pixels whose centres lie within `radius` of `centre`, clipped to the frame.
    mutating func drawDot(at centre: Point, radius: Int, colour: BGRA) {
        let r = Double(radius)
        guard centre.x.isFinite, centre.y.isFinite else { return }
        let left = max(0, Int((centre.x - r).rounded(.down))), right = min(width - 1, Int((centre.x + r).rounded(.up)))
        let top = max(0, Int((centre.y - r).rounded(.down))), bottom = min(height - 1, Int((centre.y + r).rounded(.up)))
        guard left <= right, top <= bottom else { return }
        for y in top...bottom {
            for x in left...right {
                let (dx, dy) = (Double(x) + 0.5 - centre.x, Double(y) + 0.5 - centre.y)
                if dx * dx + dy * dy <= r * r { setPixel(x: x, y: y, to: colour) }
            }
        }
    }
}
