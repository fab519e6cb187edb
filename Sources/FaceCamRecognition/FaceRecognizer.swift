import FaceCam
import Synchronization

/// The enrolled descriptors a face is compared with, and how near counts as the same person: a face is
/// named after the person of the nearest enrolled descriptor when it lies within `tolerance`. Distances
/// are between unit-length descriptors (`FaceDescriptor.unitLength`), from 0 to 2.
public struct EnrolledFaces: Sendable {
    public let entries: [(name: String, descriptor: FaceDescriptor)]
    public let tolerance: Double
    private let unitLength: [FaceDescriptor]

    public init(_ entries: [(name: String, descriptor: FaceDescriptor)], tolerance: Double) {
        self.entries = entries
        self.tolerance = tolerance
        unitLength = entries.map(\.descriptor.unitLength)
    }

    /// The nearest enrolled person and the distance to them, named when within the tolerance and nearer
    /// than anyone else (two people at the same distance leave the face unknown); unknown with no distance
    /// when no one is enrolled.
    public func identify(_ descriptor: FaceDescriptor) -> FaceIdentity {
        let probe = descriptor.unitLength
        let distances = zip(entries, unitLength).map { (name: $0.name, distance: probe.distance(to: $1)) }
        guard let nearest = distances.min(by: { $0.distance < $1.distance }) else { return FaceIdentity(name: nil, distance: nil) }
        let tied = distances.contains { $0.distance == nearest.distance && $0.name != nearest.name }
        return FaceIdentity(name: nearest.distance <= tolerance && !tied ? nearest.name : nil, distance: nearest.distance)
    }
}

/// Any detector whose faces are described (dlib's 5-point alignment and ResNet) and, given enrolled
/// people (`--recognize`), named after the nearest of them within the tolerance, or unknown. Faces are described upright, in a cut of the upright aperture around them, so
/// a photograph's orientation tag and a turned camera do not matter. Not thread-safe: give each thread its own.
public final class FaceRecognizer: FrameFaceDetector {
    /// How far around a face's box its cut reaches, in box sizes: beyond what dlib's chip (its
    /// landmarks' box padded by a quarter) reads, so that the cut describes as the whole frame does.
    public static let margin = 1.0

    public let detector: any FrameFaceDetector
    /// Whom faces are named after; nil describes them only (`--cluster`).
    public let enrolled: EnrolledFaces?
    /// Whether each face carries its descriptor.
    public let keepsDescriptors: Bool
    private let describer: FaceDescriber

    public init(_ detector: any FrameFaceDetector, describer: FaceDescriber, enrolled: EnrolledFaces?, keepsDescriptors: Bool = false) {
        self.detector = detector
        self.describer = describer
        self.enrolled = enrolled
        self.keepsDescriptors = keepsDescriptors
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        var faces = try detector.detect(in: frame, geometry: geometry)
        for index in faces.indices {
            guard let described = try Self.describe(faces[index], in: frame, geometry: geometry, with: describer) else { continue }
            faces[index].identity = enrolled?.identify(described.descriptor)
            if keepsDescriptors { faces[index].descriptor = described.descriptor.values }
        }
        return faces
    }

    public func beginSource() { detector.beginSource() }

    /// `face` described upright, from a cut of the upright aperture `margin` box sizes around it; nil
    /// when nothing of it is in the aperture.
    public static func describe(
        _ face: Face, in frame: Frame, geometry: PreviewGeometry, with describer: FaceDescriber
    ) throws(FaceCamError) -> DescribedFace? {
        guard let cut = try frame.uprightCut(around: face.box, margin: margin, geometry: geometry) else { return nil }
        do throws(RecognitionError) {
            return try describer.describe(cut.box, in: cut.image)
        } catch {
            throw .recognition(error.description)
        }
    }
}

/// A named detector with the faces of some enrolled people left out, so that `redact --spare` leaves
/// them visible. A face is left out only when its own descriptor, in this frame, names a spared person
/// (within the recognizer's tolerance): a face unknown, named after someone else or not described is
/// kept, so that a doubt hides the face. Not thread-safe: give each thread its own; `count` may be shared.
public final class SparingDetector: FrameFaceDetector {
    /// The faces left out so far, by every detector sharing it; read from any thread.
    public final class Count: Sendable {
        private let value = Mutex(0)

        public init() {}

        public var total: Int { value.withLock { $0 } }

        func add(_ count: Int) { value.withLock { $0 += count } }
    }

    public let recognizer: FaceRecognizer
    public let spared: Set<String>
    public let count: Count

    public init(_ recognizer: FaceRecognizer, sparing spared: Set<String>, count: Count) {
        self.recognizer = recognizer
        self.spared = spared
        self.count = count
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        let faces = try recognizer.detect(in: frame, geometry: geometry)
        let kept = faces.filter { face in face.identity?.name.map(spared.contains) != true }
        if kept.count < faces.count { count.add(faces.count - kept.count) }
        return kept
    }

    public func beginSource() { recognizer.beginSource() }
}
