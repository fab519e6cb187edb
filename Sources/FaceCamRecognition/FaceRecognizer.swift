import FaceCam

/// The enrolled descriptors a face is compared with, and how near counts as the same person: a face is
/// named after the person of the nearest enrolled descriptor when it lies within `tolerance`.
public struct EnrolledFaces: Sendable {
    public let entries: [(name: String, descriptor: FaceDescriptor)]
    public let tolerance: Double

    public init(_ entries: [(name: String, descriptor: FaceDescriptor)], tolerance: Double) {
        self.entries = entries
        self.tolerance = tolerance
    }

    /// The nearest enrolled person and the distance to them, named when within the tolerance;
    /// unknown with no distance when no one is enrolled.
    public func identify(_ descriptor: FaceDescriptor) -> FaceIdentity {
        let distances = entries.map { (name: $0.name, distance: descriptor.distance(to: $0.descriptor)) }
        guard let nearest = distances.min(by: { $0.distance < $1.distance }) else { return FaceIdentity(name: nil, distance: nil) }
        return FaceIdentity(name: nearest.distance <= tolerance ? nearest.name : nil, distance: nearest.distance)
    }
}

/// Any detector whose faces are named against enrolled people (`--recognize`): each face it finds is
/// described (dlib's 5-point alignment and ResNet) and given the nearest enrolled person within the
/// tolerance, or unknown. Faces are described upright, in a cut of the upright aperture around them, so
/// a photograph's orientation tag and a turned camera do not matter. Not thread-safe: give each thread its own.
public final class FaceRecognizer: FrameFaceDetector {
    /// How far around a face's box its cut reaches, in box sizes: beyond what dlib's chip (its
    /// landmarks' box padded by a quarter) reads, so that the cut describes as the whole frame does.
    public static let margin = 1.0

    public let detector: any FrameFaceDetector
    public let enrolled: EnrolledFaces
    private let describer: FaceDescriber

    public init(_ detector: any FrameFaceDetector, describer: FaceDescriber, enrolled: EnrolledFaces) {
        self.detector = detector
        self.describer = describer
        self.enrolled = enrolled
    }

    public func detect(in frame: Frame, geometry: PreviewGeometry) throws(FaceCamError) -> [Face] {
        var faces = try detector.detect(in: frame, geometry: geometry)
        for index in faces.indices {
            guard let described = try Self.describe(faces[index], in: frame, geometry: geometry, with: describer) else { continue }
            faces[index].identity = enrolled.identify(described.descriptor)
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
