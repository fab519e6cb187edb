internal import CFaceDetect

/// A picture decoded with its alpha channel, shared by every frame it is laid on.
public final class OverlayImage: Hashable, Sendable {
    /// The file it came from, for messages.
    public let path: String
    public let frame: Frame

    /// The largest overlay accepted: 16 megapixels (64 MB), more than any face needs.
    public static let maximumMegapixels = 16
    public static let maximumPixels = maximumMegapixels * 1_000_000
    /// The longest side accepted: OpenCV's resize takes images under 32,767 (SHRT_MAX) pixels a side.
    public static let maximumSide = 32_766

    /// Reads `path`; a file that cannot be read or decoded, that announces more than `maximumPixels`,
    /// is longer than `maximumSide`, or, when `requiringAlpha`, that has no alpha channel, is refused
    /// with an error naming it.
    public init(path: String, requiringAlpha: Bool) throws(FaceCamError) {
        let frame: Frame, hasAlpha: Bool
        do {
            (frame, hasAlpha) = try ImageFile.loadWithAlpha(FilePath(path), maximumPixels: Self.maximumPixels)
        } catch .tooLarge(_, let size, _) {
            throw .unusablePicture(path: path, reason: "\(size) is more than the \(Self.maximumMegapixels) megapixels an overlay may have; shrink it")
        }
        if max(frame.width, frame.height) > Self.maximumSide {
            throw .unusablePicture(path: path, reason: "\(frame.width)x\(frame.height) is more than the \(Self.maximumSide) pixels a side "
                + "an overlay may have; shrink it")
        }
        if requiringAlpha, !hasAlpha { throw .overlayWithoutAlpha(path: path) }
        self.path = path
        self.frame = frame
    }

    /// A picture already decoded (tests).
    init(frame: Frame, path: String) {
        self.path = path
        self.frame = frame
    }

    public static func == (lhs: OverlayImage, rhs: OverlayImage) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A picture laid on each face (`--overlay`): two points of the picture go onto two landmarks of the
/// face, so that it is scaled to the face and turned with it.
public struct FaceOverlay: Hashable, Sendable {
    /// The landmarks the picture's two points go onto.
    public enum Anchor: String, CaseIterable, Sendable {
        /// The eyes: a mask, glasses.
        case eyes
        /// The mouth's corners: a mustache.
        case mouth
    }

    public let image: OverlayImage
    public let anchor: Anchor
    /// The picture's two points, in its pixels (continuous coordinates): the first goes onto the
    /// face's landmark on the left of an unmirrored picture (the person's right eye or mouth corner).
    public let points: [Point]

    /// `points` nil takes `defaultPoints`.
    public init(image: OverlayImage, anchor: Anchor = .eyes, points: [Point]? = nil) {
        precondition(points == nil || points!.count == 2, "an overlay is placed by two points")
        self.image = image
        self.anchor = anchor
        self.points = points ?? Self.defaultPoints(anchor: anchor, size: image.frame.size)
    }

    /// The default points of a picture `size` large (`defaultShares`).
    public static func defaultPoints(anchor: Anchor, size: PixelSize) -> [Point] {
        defaultShares(anchor: anchor).map { Point(x: $0.x * Double(size.width), y: $0.y * Double(size.height)) }
    }

    /// The default points as shares of the picture's width and height. Eyes: 30% and 70% across, 40% down, so the
    /// picture is 2.5 eye distances wide, about a face's width. Mouth: 25% and 75% across its bottom edge, so that it
    /// sits above the mouth, twice as wide.
    public static func defaultShares(anchor: Anchor) -> [Point] {
        switch anchor {
        case .eyes: [Point(x: 0.3, y: 0.4), Point(x: 0.7, y: 0.4)]
        case .mouth: [Point(x: 0.25, y: 1), Point(x: 0.75, y: 1)]
        }
    }

    /// The map from the picture's coordinates to `landmarks`' (a face's, in the frame it is laid on);
    /// nil when the face's two points coincide.
    public func placement(on landmarks: FaceLandmarks) -> AffineTransform? {
        var targets = anchor == .eyes ? [landmarks.rightEye, landmarks.leftEye] : [landmarks.rightMouthCorner, landmarks.leftMouthCorner]
        // In a mirrored picture the person's right is on the right: the picture's first point goes
        // onto the landmark on the left still, since a turn cannot mirror it.
        let across = Point(x: landmarks.leftEye.x - landmarks.rightEye.x, y: landmarks.leftEye.y - landmarks.rightEye.y)
        let eyes = Point(x: (landmarks.leftEye.x + landmarks.rightEye.x) / 2, y: (landmarks.leftEye.y + landmarks.rightEye.y) / 2)
        let mouth = Point(
            x: (landmarks.leftMouthCorner.x + landmarks.rightMouthCorner.x) / 2,
            y: (landmarks.leftMouthCorner.y + landmarks.rightMouthCorner.y) / 2)
        if across.x * (mouth.y - eyes.y) - across.y * (mouth.x - eyes.x) < 0 { targets.reverse() }
        return AffineTransform.similarity(from: points, to: targets)
    }

    /// Lays the picture on `frame` over the face whose landmarks (in `frame`'s coordinates) are `landmarks`.
    public func place(on frame: inout Frame, landmarks: FaceLandmarks) throws(FaceCamError) {
        guard let placement = placement(on: landmarks), let toOverlay = placement.onPixelIndices.inverted() else { return }
        let map = [toOverlay.a, toOverlay.b, toOverlay.c, toOverlay.d, toOverlay.tx, toOverlay.ty]
        var error = cfd_error()
        let (width, height, stride) = (Int32(frame.width), Int32(frame.height), frame.bytesPerRow)
        let status = image.frame.withImageView { overlay in
            frame.pixels.withUnsafeMutableBufferPointer { pixels in
                cfd_composite(pixels.baseAddress, width, height, stride, &overlay, map, &error)
            }
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
    }
}
