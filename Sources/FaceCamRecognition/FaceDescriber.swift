#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
internal import CFaceRecognition
import FaceCam

/// Who a face is, as 128 numbers: dlib's face-recognition network's output for the face's aligned
/// chip. Two photographs of one person lie close, by Euclidean distance.
public struct FaceDescriptor: Hashable, Sendable {
    public static let count = Int(CFR_DESCRIPTOR_LENGTH)
    public let values: [Float]

    /// `values` must hold `count` numbers.
    public init?(_ values: [Float]) {
        guard values.count == Self.count else { return nil }
        self.values = values
    }

    /// The Euclidean distance between the two descriptors.
    public func distance(to other: FaceDescriptor) -> Double {
        zip(values, other.values).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }.squareRoot()
    }

    /// The mean of `descriptors` (one or more), value by value, summed in doubles in their order.
    public static func mean(_ descriptors: [FaceDescriptor]) -> FaceDescriptor {
        precondition(!descriptors.isEmpty, "a mean needs a descriptor")
        let count = Double(descriptors.count)
        return FaceDescriptor((0..<Self.count).map { k in Float(descriptors.reduce(0.0) { $0 + Double($1.values[k]) } / count) })!
    }

    /// The descriptor scaled to length 1 (a zero descriptor stays zero). Identification compares these:
    /// on LFW their distances name more people at as few strangers as the raw ones (docs/benchmarks.md).
    public var unitLength: FaceDescriptor {
        let length = values.reduce(0.0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard length > 0 else { return self }
        return FaceDescriptor(values.map { Float(Double($0) / length) })!
    }
}

/// What went wrong making or using a describer.
public enum RecognitionError: Error, Equatable, CustomStringConvertible {
    /// A model file was found in none of the places tried.
    case modelNotFound(String, tried: [String])
    /// A model file is there but is not the model dlib expects: the shim's reason names the file.
    case modelUnloadable(String)
    /// dlib failed on a face (out of memory, or a bad argument).
    case describeFailed(String)

    public var description: String {
        switch self {
        case .modelNotFound(let file, let tried):
            "the face-recognition model \(file) was not found; tried \(tried.joined(separator: ", ")) "
                + "(run make models in a source tree, or reinstall facecam)"
        case .modelUnloadable(let reason):
            "cannot load the face-recognition models: \(reason) (run make models in a source tree, or reinstall facecam)"
        case .describeFailed(let reason):
            "cannot describe a face: \(reason)"
        }
    }
}

/// dlib's two CC0 models: the 5-point shape predictor that places the eyes and nose, and the ResNet
/// that turns the aligned chip into a descriptor. `make models` fetches them.
public struct RecognitionModels: Hashable, Sendable {
    public static let shapePredictorFile = "shape_predictor_5_face_landmarks.dat"
    public static let networkFile = "dlib_face_recognition_resnet_model_v1.dat"

    public let shapePredictor: String
    public let network: String

    public init(shapePredictor: String, network: String) {
        self.shapePredictor = shapePredictor
        self.network = network
    }

    /// The models shipped with facecam, looked for in `directories` in order (by default where
    /// facecam's other shipped files are: its build's resource bundle, then the share directories).
    public init(shippedIn directories: [String]? = nil) throws(RecognitionError) {
        let directories = directories ?? FaceModelFile.searchDirectories(bundleFolder: "facecam_FaceCamRecognition.resources/Dlib")
        func find(_ file: String) throws(RecognitionError) -> String {
            let candidates = directories.map { $0 + "/" + file }
            guard let found = candidates.first(where: { access($0, R_OK) == 0 }) else {
                throw .modelNotFound(file, tried: candidates)
            }
            return found
        }
        self.init(shapePredictor: try find(Self.shapePredictorFile), network: try find(Self.networkFile))
    }
}

/// A face's descriptors and the five points dlib's predictor placed to align it.
public struct DescribedFace: Sendable {
    /// What facecam compares, enrols and writes: the mean of the chip's and its mirror image's
    /// descriptors, which on LFW names more people at as few strangers than either (docs/benchmarks.md).
    public let descriptor: FaceDescriptor
    /// dlib's own descriptor of the aligned chip, as its Python bindings' compute_face_descriptor gives it.
    public let chip: FaceDescriptor
    /// dlib's descriptor of the chip mirrored left to right.
    public let mirrored: FaceDescriptor
    /// Right eye's outer and inner corners, left eye's outer and inner corners, the bottom of the nose
    /// (dlib's 5-point order), in the frame's pixels.
    public let points: [Point]

    init(chip: FaceDescriptor, mirrored: FaceDescriptor, points: [Point]) {
        descriptor = .mean([chip, mirrored])
        self.chip = chip
        self.mirrored = mirrored
        self.points = points
    }
}

/// Describes faces in frames with dlib's models. Not thread-safe: give each thread its own.
public final class FaceDescriber {
    private let handle: OpaquePointer

    public init(models: RecognitionModels) throws(RecognitionError) {
        var error = cfr_error()
        guard let handle = cfr_describer_create(models.shapePredictor, models.network, &error) else {
            throw .modelUnloadable(error.text)
        }
        self.handle = handle
    }

    deinit { cfr_describer_destroy(handle) }

    /// The descriptor of the face boxed by `box` in `frame` (its buffer's pixels, as `Face.box` is).
    public func describe(_ box: PixelRect, in frame: Frame) throws(RecognitionError) -> DescribedFace {
        var values = [Float](repeating: 0, count: FaceDescriptor.count)
        var mirroredValues = [Float](repeating: 0, count: FaceDescriptor.count)
        var landmarks = [Float](repeating: 0, count: 10)
        var error = cfr_error()
        let status = frame.pixels.withUnsafeBufferPointer { pixels in
            values.withUnsafeMutableBufferPointer { values in
                mirroredValues.withUnsafeMutableBufferPointer { mirroredValues in
                    landmarks.withUnsafeMutableBufferPointer { landmarks in
                        cfr_describe(
                            handle, pixels.baseAddress, Int32(clamping: frame.width), Int32(clamping: frame.height),
                            Int32(clamping: frame.bytesPerRow), Int32(clamping: box.x), Int32(clamping: box.y),
                            Int32(clamping: box.width), Int32(clamping: box.height), values.baseAddress, mirroredValues.baseAddress,
                            landmarks.baseAddress, &error)
                    }
                }
            }
        }
        guard status == CFR_OK, let chip = FaceDescriptor(values), let mirrored = FaceDescriptor(mirroredValues) else {
            throw .describeFailed(error.text)
        }
        let points = stride(from: 0, to: 10, by: 2).map { Point(x: Double(landmarks[$0]), y: Double(landmarks[$0 + 1])) }
        return DescribedFace(chip: chip, mirrored: mirrored, points: points)
    }
}

extension cfr_error {
    /// The shim's one-line message.
    var text: String { withUnsafeBytes(of: message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) } }
}
