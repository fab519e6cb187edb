#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceDetect

/// detectMultiScale's parameters.
public struct DetectorParameters: Hashable, Sendable {
    /// How much the search window grows between scales (> 1).
    public var scaleFactor: Double
    /// How many overlapping hits a face needs to be kept (>= 0).
    public var minNeighbors: Int
    /// Smallest face searched for.
    public var minSize: PixelSize
    /// Largest face searched for; nil for no limit.
    public var maxSize: PixelSize?

    public init(
        scaleFactor: Double = 1.1, minNeighbors: Int = 3,
        minSize: PixelSize = PixelSize(width: 30, height: 30), maxSize: PixelSize? = nil
    ) {
        self.scaleFactor = scaleFactor
        self.minNeighbors = minNeighbors
        self.minSize = minSize
        self.maxSize = maxSize
    }
}

/// A cascade classifier XML file.
public struct Cascade: Hashable, Sendable {
    public static let defaultName = "haarcascade_frontalface_alt2"

    /// Where names are looked up, in order (Debian's opencv-data first).
    public static let searchDirectories = [
        "/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades",
        "/usr/local/share/opencv4/haarcascades", "/usr/local/share/opencv4/lbpcascades",
    ]

    public let path: String

    /// A path (anything with a `/`, or an existing file) is taken as it is; a
    /// name such as `haarcascade_frontalface_alt2` is looked up in
    /// `directories`, with or without `.xml`.
    public init(resolving nameOrPath: String, directories: [String] = Cascade.searchDirectories) throws(FaceCamError) {
        var candidates: [String] = []
        if nameOrPath.contains("/") {
            candidates = [nameOrPath]
        } else {
            let file = nameOrPath.hasSuffix(".xml") ? nameOrPath : nameOrPath + ".xml"
            candidates = [nameOrPath] + directories.map { "\($0)/\(file)" }
        }
        guard let found = candidates.first(where: { (try? fileKind($0)) == .regular }) else {
            throw .cascadeNotFound(name: nameOrPath, tried: candidates)
        }
        path = found
    }
}

/// Finds faces in one frame at a time. Implementations may remember earlier
/// frames (fast mode does), so each belongs to one thread and sees frames in order.
public protocol FrameFaceDetector: AnyObject {
    func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face]
    /// Forgets what earlier frames taught: the next frame starts a new source,
    /// whose results must not depend on the sources before it.
    func beginSource()
}

extension FrameFaceDetector {
    /// Detectors that look at each frame alone have nothing to forget.
    public func beginSource() {}
}

/// A detector handed from one thread to another, which its holder (a serial queue, a pool lending it to one job) sees to.
/// @unchecked Sendable: a detector's C handles (OpenCV's models), used by one thread at a time.
public struct HandedDetector: @unchecked Sendable {
    public let detector: any FrameFaceDetector

    public init(_ detector: any FrameFaceDetector) {
        self.detector = detector
    }
}

/// A Haar or LBP cascade detector. Not thread-safe: give each thread its own.
public final class FaceDetector: FrameFaceDetector {
    public let cascade: Cascade
    public let parameters: DetectorParameters
    private let handle: OpaquePointer

    public init(cascade: Cascade, parameters: DetectorParameters = DetectorParameters()) throws(FaceCamError) {
        var error = cfd_error()
        guard let handle = cfd_detector_create(cascade.path, &error) else {
            throw .cascadeUnloadable(path: cascade.path, reason: error.text)
        }
        self.cascade = cascade
        self.parameters = parameters
        self.handle = handle
    }

    deinit { cfd_detector_destroy(handle) }

    /// Finds faces in the upright aperture of `frame`, as `geometry` describes it,
    /// ordered by box y, then x, then width, then height.
    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        try prepare(frame, geometry: geometry)
        return faces(fromUpright: try search(region: nil, shrink: 1, minSize: parameters.minSize, maxSize: parameters.maxSize),
                     geometry: geometry)
    }

    /// Makes `frame`'s equalised upright grey image, which `search` then looks in.
    func prepare(_ frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) {
        try frame.prepare(geometry) { cfd_prepare(handle, &$0, $1, $2, &$3) }
    }

    /// Searches `region` (nil: everything) of the prepared image, shrunk by
    /// `shrink` first; rects in upright pixels, in OpenCV's order.
    func search(region: PixelRect?, shrink: Double, minSize: PixelSize, maxSize: PixelSize?) throws(FaceCamError) -> [PixelRect] {
        var params = shimParameters(minSize: minSize, maxSize: maxSize)
        return try rects { rects, error in
            if let region {
                var area = region.shimRect
                return cfd_search(handle, &area, shrink, &params, &rects, &error)
            }
            return cfd_search(handle, nil, shrink, &params, &rects, &error)
        }
    }

    /// The faces inside `region` of the prepared image that a search of the whole image finds,
    /// found by searching `region` alone (`cfd_search_in_place`): the same boxes, for a fraction of
    /// the cost. Upright pixels.
    func searchInPlace(region: PixelRect, minSize: PixelSize, maxSize: PixelSize?) throws(FaceCamError) -> [PixelRect] {
        var params = shimParameters(minSize: minSize, maxSize: maxSize)
        return try rects { rects, error in cfd_search_in_place(handle, region.shimRect, &params, &rects, &error) }
    }

    private func shimParameters(minSize: PixelSize, maxSize: PixelSize?) -> cfd_params {
        cfd_params(
            scale_factor: parameters.scaleFactor, min_neighbors: Int32(clamping: parameters.minNeighbors),
            min_width: Int32(clamping: minSize.width), min_height: Int32(clamping: minSize.height),
            max_width: Int32(clamping: maxSize?.width ?? 0), max_height: Int32(clamping: maxSize?.height ?? 0))
    }

    /// The rects a shim call hands back, in upright pixels.
    private func rects(_ call: (inout cfd_rects, inout cfd_error) -> cfd_status) throws(FaceCamError) -> [PixelRect] {
        var rects = cfd_rects()
        var error = cfd_error()
        guard call(&rects, &error) == CFD_OK else { throw .openCV(error.text) }
        defer { cfd_rects_free(&rects) }
        return UnsafeBufferPointer(start: rects.rects, count: rects.count).map {
            PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height))
        }
    }

    /// From now on, `prepare` also keeps what `changedRegions` compares.
    func watchChanges() {
        cfd_watch_changes(handle)
    }

    /// Where the prepared frame changed since the one prepared before it, outside `ignoring`:
    /// regions whose 8x8 cells' mean grey changed by more than `threshold` levels, in upright pixels.
    func changedRegions(threshold: Int, ignoring: [PixelRect]) throws(FaceCamError) -> [PixelRect] {
        let ignored = ignoring.map(\.shimRect)
        return try rects { rects, error in
            ignored.withUnsafeBufferPointer {
                cfd_changed_regions(handle, Int32(clamping: threshold), $0.baseAddress, $0.count, &rects, &error)
            }
        }
    }

    /// Upright rects as faces: boxes in the buffer, rects in the preview, in facecam's order.
    func faces(fromUpright upright: [PixelRect], geometry: PreviewGeometry) -> [Face] {
        upright.map { rect in
            let box = geometry.bufferRect(fromUpright: rect)
            return Face(box: box, preview: geometry.previewRect(of: box))
        }.inReportingOrder()
    }
}
