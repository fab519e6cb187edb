/// How `--crops` cuts each face out of its frame.
public enum FaceCropStyle: Hashable, Sendable {
    /// The face's box, widened by `margin` times its width and height on each side, upright as
    /// the preview shows it (not mirrored, not scaled) and clipped to the frame.
    case box(margin: Double)
    /// `size` pixels square: the similarity (turn, scale, shift) that best takes the five landmarks
    /// onto `FaceLandmarks.alignmentTemplate`, scaled from 112 to `size`, as face-recognition models
    /// take faces, in the upright picture (a frame stored mirrored is read the right way round).
    /// Faces without landmarks (Haar's) have none.
    case aligned(size: Int)

    public static let defaultMargin = 0.25
    public static let defaultAlignedSize = 112

    /// `face` cut out of `frame`, the frame `geometry` describes; nil when there is nothing to cut.
    public func crop(_ face: Face, from frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> Frame? {
        switch self {
        case .aligned(let size):
            guard let landmarks = face.landmarks else { return nil }
            let scale = Double(size) / 112
            let template = FaceLandmarks.alignmentTemplate.points.map { Point(x: $0.x * scale, y: $0.y * scale) }
            // Landmarks and template are both taken as OpenCV's pixel indices, as InsightFace's norm_crop takes them.
            let toUpright = geometry.bufferToUpright.onPixelIndices
            guard let toCrop = AffineTransform.similarity(from: landmarks.points.map(toUpright.apply), to: template),
                let fromCrop = toCrop.inverted()
            else { return nil }
            return try frame.warped(to: PixelSize(width: size, height: size), sampling: fromCrop.followed(by: toUpright.inverted()!))
        case .box(let margin):
            return try frame.uprightCut(around: face.box, margin: margin, geometry: geometry)?.image
        }
    }
}

/// A cut of a frame's upright aperture around a face, and where the face's box lies in it.
public struct UprightCut: Sendable {
    public let image: Frame
    /// The face's box, upright, in the cut's pixels.
    public let box: PixelRect
}

extension Frame {
    /// The upright aperture (as `geometry` describes this frame) around `box`, a box in the buffer,
    /// widened by `margin` of its size on each side and clipped to the aperture; nil when nothing is left.
    public func uprightCut(around box: PixelRect, margin: Double, geometry: PreviewGeometry) throws(FaceCamError) -> UprightCut? {
        let upright = geometry.bufferToUpright.apply(box.rect)
        guard let clipped = upright.widened(by: margin).clipped(to: geometry.uprightSize) else { return nil }
        let x0 = Int(clipped.minX.rounded()), y0 = Int(clipped.minY.rounded())
        let size = PixelSize(width: Int(clipped.maxX.rounded()) - x0, height: Int(clipped.maxY.rounded()) - y0)
        guard size.width > 0, size.height > 0 else { return nil }
        // Whole-pixel shifts and quarter turns: every pixel of the cut is one of the frame's, unblended.
        let cutToBuffer = AffineTransform.translation(x: Double(x0), y: Double(y0)).followed(by: geometry.bufferToUpright.inverted()!)
        let image = try warped(to: size, sampling: cutToBuffer.onPixelIndices)
        let inCut = PixelRect(
            x: Int(upright.x.rounded()) - x0, y: Int(upright.y.rounded()) - y0,
            width: Int(upright.width.rounded()), height: Int(upright.height.rounded()))
        return UprightCut(image: image, box: inCut)
    }
}

/// The faces of one frame cut out (`FrameJob.crops`), to be saved once tracking has named them.
public struct FaceCrops: Sendable {
    /// The frame's name, which each face's file name starts with.
    public var name: String
    /// One per face, in the faces' order; nil for a face with nothing to cut.
    public var images: [Frame?]

    public init(name: String, images: [Frame?]) {
        self.name = name
        self.images = images
    }

    /// The file name (without extension) of the crop of `face`, the `index`th face of its frame:
    /// `NAME-idID` for a tracked face, `NAME-faceINDEX` (from 0) otherwise.
    public func fileName(of face: Face, index: Int) -> String {
        name + (face.id.map { "-id\($0)" } ?? "-face\(index)")
    }
}

/// What `FrameJob` asks for when faces are to be cut out.
public struct CropRequest: Sendable {
    public var style: FaceCropStyle
    /// The frame's name, which each face's file name starts with.
    public var name: String

    public init(style: FaceCropStyle, name: String) {
        self.style = style
        self.name = name
    }

    /// `faces` cut out of `frame`, the frame `geometry` describes.
    func cut(_ faces: [Face], from frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> FaceCrops {
        FaceCrops(name: name, images: try faces.map { (face) throws(FaceCamError) in try style.crop(face, from: frame, geometry: geometry) })
    }
}
