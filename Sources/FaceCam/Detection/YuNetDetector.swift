#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// FaceDetectorYN's parameters, and the face sizes facecam keeps.
public struct YuNetParameters: Hashable, Sendable {
    /// Faces scoring less (0...1) are dropped.
    public var scoreThreshold: Double
    /// Faces overlapping a better one by more than this IoU (0...1) are dropped.
    public var nmsThreshold: Double
    /// Candidates kept before non-maximum suppression.
    public var topK: Int
    /// Faces whose box is narrower or lower than this are dropped.
    public var minSize: PixelSize
    /// Faces whose box is wider or taller than this are dropped; nil for no limit.
    public var maxSize: PixelSize?

    public init(
        scoreThreshold: Double = 0.9, nmsThreshold: Double = 0.3, topK: Int = 5000,
        minSize: PixelSize = PixelSize(width: 0, height: 0), maxSize: PixelSize? = nil
    ) {
        self.scoreThreshold = scoreThreshold
        self.nmsThreshold = nmsThreshold
        self.topK = topK
        self.minSize = minSize
        self.maxSize = maxSize
    }
}

/// The YuNet ONNX model file.
public struct YuNetModel: Hashable, Sendable {
    public static let fileName = "face_detection_yunet_2022mar.onnx"

    public let path: String

    /// A model at `path`, which must be a regular file.
    public init(path: String) throws(FaceCamError) {
        guard (try? fileKind(path)) == .regular else { throw .modelNotFound(tried: [path]) }
        self.path = path
    }

    /// The model shipped with facecam, looked for in `directories` in order.
    public init(shippedIn directories: [String] = YuNetModel.searchDirectories()) throws(FaceCamError) {
        let candidates = directories.map { $0 + "/" + Self.fileName }
        guard let found = candidates.first(where: { (try? fileKind($0)) == .regular }) else {
            throw .modelNotFound(tried: candidates)
        }
        path = found
    }

    /// Where the shipped model is looked for: SwiftPM's resource bundle beside
    /// the executable (a build), the executable's own directory, the share
    /// directory of the prefix it is installed under, then the usual share directories.
    public static func searchDirectories(executable: String? = executablePath()) -> [String] {
        var directories: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            let directory = String(executable[..<slash])
            directories += [directory + "/facecam_FaceCam.resources/YuNet", directory, directory + "/../share/facecam"]
        }
        return directories + ["/usr/local/share/facecam", "/usr/share/facecam"]
    }

    /// The running executable, from /proc/self/exe.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// OpenCV's YuNet DNN face detector (FaceDetectorYN) on the upright aperture.
///
/// Faces come from one search of the whole upright aperture, exactly as
/// FaceDetectorYN reports them. The model finds faces of about 10 to 300
/// pixels; larger ones come back as fragments or not at all. So when the
/// searched image's shorter side exceeds `largeFaceLimit`, a second search
/// runs on a copy shrunk to a shorter side of `largeFaceSearchSide`, and of
/// its faces keeps those larger than `largeFaceLimit` that the first search
/// did not already find whole (see `sameFace`); faces of the first search
/// overlapping such a face (IoU 0.3 or more) or lying half inside it are
/// fragments of it and go.
///
/// The network's memory grows with the image (about 90 bytes a pixel: 4 GB
/// for a 48-megapixel photograph), so an image larger than
/// `maximumSearchPixels` (4K UHD) is searched shrunk to that many pixels.
///
/// Not thread-safe: give each thread its own.
public final class YuNetDetector: FrameFaceDetector {
    /// The model's upper face size, in pixels of the searched image.
    public static let largeFaceLimit = 300.0
    /// The shorter side of the large-face search's copy: a face filling it is within the model's range.
    public static let largeFaceSearchSide = 240.0
    /// The most pixels one search looks at: 3840 x 2160.
    public static let maximumSearchPixels = 3840.0 * 2160

    public let model: YuNetModel
    public let parameters: YuNetParameters
    /// Fast mode: search the frame shrunk to this width when that at least halves its pixels
    /// (`fastShrinkAtLeast`); nil searches it at full size.
    public let searchWidth: Int?
    /// The least shrink factor (of each side) fast mode applies: a frame less than this much wider
    /// than `searchWidth` is searched at full size. A smaller shrink saves under half the time, and
    /// any shrink moves YuNet's scores, so faces near the threshold come and go against exact mode.
    public static let fastShrinkAtLeast = 2.0.squareRoot()
    private let handle: OpaquePointer

    public init(model: YuNetModel, parameters: YuNetParameters = YuNetParameters(), searchWidth: Int? = nil) throws(FaceCamError) {
        var params = cfd_yunet_params(
            score_threshold: Float(parameters.scoreThreshold), nms_threshold: Float(parameters.nmsThreshold),
            top_k: Int32(clamping: parameters.topK))
        var error = cfd_error()
        guard let handle = cfd_yunet_create(model.path, &params, &error) else {
            throw .modelUnloadable(path: model.path, reason: error.text)
        }
        self.model = model
        self.parameters = parameters
        self.searchWidth = searchWidth
        self.handle = handle
    }

    deinit { cfd_yunet_destroy(handle) }

    /// Finds faces in the upright aperture of `frame`, ordered by box y, then x, then width, then height.
    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        precondition(geometry.frameSize == frame.size, "geometry made for another frame size")
        var error = cfd_error()
        let status = frame.withImageView { view in
            cfd_yunet_prepare(handle, &view, geometry.aperture.shimRect, Int32(geometry.orientation.rawValue), &error)
        }
        guard status == CFD_OK else { throw .openCV(error.text) }

        let upright = geometry.uprightSize
        let searched = Self.searchSize(for: upright, searchWidth: searchWidth)
        var faces = try search(searched)
        let shorter = Double(min(searched.width, searched.height))
        if shorter > Self.largeFaceLimit {
            // In the searched image's pixels, as the model sees faces.
            let scale = Double(searched.width) / Double(upright.width)
            let copy = Self.shrunk(upright, toWidth: Double(searched.width) * Self.largeFaceSearchSide / shorter)
            for large in try search(copy) where max(large.box.width, large.box.height) * scale > Self.largeFaceLimit {
                if faces.contains(where: { Self.sameFace($0.box, large.box) }) { continue }
                faces.removeAll { $0.box.overlap(with: large.box) >= 0.3 || $0.box.intersectionArea(with: large.box) >= $0.box.area / 2 }
                faces.append(large)
            }
        }
        return faces.compactMap { face in
            let box = face.roundedBox
            guard box.width >= parameters.minSize.width, box.height >= parameters.minSize.height,
                  parameters.maxSize.map({ box.width <= $0.width && box.height <= $0.height }) ?? true
            else { return nil }
            return Face(upright: face, box: box, geometry: geometry)
        }.inReportingOrder()
    }

    /// The size the upright image of `upright` is searched at: shrunk to `searchWidth` (fast mode)
    /// when it is at least `fastShrinkAtLeast` times wider, and to at most `maximumSearchPixels`;
    /// never enlarged.
    static func searchSize(for upright: PixelSize, searchWidth: Int?) -> PixelSize {
        var width = Double(upright.width)
        if let searchWidth, width >= Double(searchWidth) * fastShrinkAtLeast { width = Double(searchWidth) }
        width = min(width, Double(upright.width) * (maximumSearchPixels / (Double(upright.width) * Double(upright.height))).squareRoot())
        return shrunk(upright, toWidth: width)
    }

    /// True when the full-size search's `box` is the whole of the large-face
    /// search's `face`: IoU 0.7 or more, or 0.5 or more with its centre within
    /// 5% of the face's height of the face's centre. A fragment (an eye and a
    /// cheek, a mouth and a chin) overlaps less, or lies off centre.
    private static func sameFace(_ box: Rect, _ face: Rect) -> Bool {
        let overlap = box.overlap(with: face)
        let dx = (box.minX + box.maxX - face.minX - face.maxX) / 2
        let dy = (box.minY + box.maxY - face.minY - face.maxY) / 2
        return overlap >= 0.7 || (overlap >= 0.5 && (dx * dx + dy * dy).squareRoot() <= 0.05 * face.height)
    }

    /// `size` scaled to `width` (never enlarged), rounded to whole pixels, at least 1x1.
    private static func shrunk(_ size: PixelSize, toWidth width: Double) -> PixelSize {
        let factor = min(1, width / Double(size.width))
        guard factor < 1 else { return size }
        return PixelSize(
            width: max(1, Int((Double(size.width) * factor).rounded())),
            height: max(1, Int((Double(size.height) * factor).rounded())))
    }

    /// FaceDetectorYN on the prepared image resized to `size`: faces in upright pixels.
    private func search(_ size: PixelSize) throws(FaceCamError) -> [UprightFace] {
        var found = cfd_yunet_faces()
        var error = cfd_error()
        guard cfd_yunet_search(handle, Int32(size.width), Int32(size.height), &found, &error) == CFD_OK else {
            throw .openCV(error.text)
        }
        defer { cfd_yunet_faces_free(&found) }
        return UnsafeBufferPointer(start: found.faces, count: found.count).map { face in
            let l = face.landmarks
            let points = [(l.0, l.1), (l.2, l.3), (l.4, l.5), (l.6, l.7), (l.8, l.9)].map { Point(x: Double($0), y: Double($1)) }
            return UprightFace(
                box: Rect(x: Double(face.x), y: Double(face.y), width: Double(face.width), height: Double(face.height)),
                landmarks: FaceLandmarks(points)!, score: Double(face.score))
        }
    }
}

/// A face as the model reports it, in continuous upright-aperture coordinates.
private struct UprightFace {
    var box: Rect
    var landmarks: FaceLandmarks
    var score: Double

    /// The box rounded to whole pixels, each of x, y, width and height on its own.
    var roundedBox: PixelRect {
        PixelRect(
            x: Int(box.x.rounded()), y: Int(box.y.rounded()),
            width: Int(box.width.rounded()), height: Int(box.height.rounded()))
    }
}

extension Face {
    /// An upright face in the buffer's and the preview's coordinates.
    fileprivate init(upright face: UprightFace, box: PixelRect, geometry: PreviewGeometry) {
        let buffer = geometry.bufferRect(fromUpright: box)
        let toBuffer = geometry.bufferToUpright.inverted()!
        let landmarks = face.landmarks.applying(toBuffer)
        self.init(
            box: buffer, preview: geometry.previewRect(of: buffer), score: face.score,
            landmarks: landmarks, previewLandmarks: landmarks.applying(geometry.bufferToPreview))
    }
}
