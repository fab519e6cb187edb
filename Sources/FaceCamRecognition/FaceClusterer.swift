internal import CFaceRecognition
import FaceCam

/// Groups the faces of a run by who they are (`--cluster`), with dlib's Chinese whispers as its Python
/// bindings' `chinese_whispers_clustering` runs it: the faces (or, in video, the tracks: the mean of each
/// track's descriptions) are joined where their unit-length descriptors lie closer than `threshold`, and
/// each connected group is split where its members vote for different neighbours. Clusters are numbered
/// from 1 in the order their first face comes.
public struct FaceClusterer: FaceClustering {
    /// Chosen on LFW (docs/benchmarks.md): the distance below which two faces are joined.
    public static let defaultThreshold = 0.33

    public let threshold: Double
    /// Whether faces keep their descriptors in the output (`--descriptors`).
    public let keepsDescriptors: Bool

    public init(threshold: Double = Self.defaultThreshold, keepsDescriptors: Bool = false) {
        self.threshold = threshold
        self.keepsDescriptors = keepsDescriptors
    }

    /// The group of each of `descriptors` (compared at unit length): equal numbers for one group.
    public static func groups(_ descriptors: [FaceDescriptor], threshold: Double = defaultThreshold) throws(FaceCamError) -> [UInt32] {
        let values = descriptors.flatMap(\.unitLength.values)
        var labels = [UInt32](repeating: 0, count: descriptors.count)
        var error = cfr_error()
        guard cfr_cluster(values, descriptors.count, threshold, &labels, &error) == CFR_OK else {
            throw .recognition("clustering the faces: \(error.text)")
        }
        return labels
    }

    /// What one cluster member stands for: a tracked face's track, or an untracked face alone.
    private enum Member: Hashable {
        case track(source: String, id: Int)
        case face(result: Int, index: Int)
    }

    public func cluster(_ results: inout [FrameResult]) throws(FaceCamError) {
        defer {
            if !keepsDescriptors {
                for r in results.indices { for f in results[r].faces.indices { results[r].faces[f].descriptor = nil } }
            }
        }
        var members: [Member: Int] = [:]
        var descriptions: [[FaceDescriptor]] = []
        func member(_ r: Int, _ f: Int) -> Member {
            results[r].faces[f].id.map { .track(source: results[r].source, id: $0) } ?? .face(result: r, index: f)
        }
        for r in results.indices {
            for f in results[r].faces.indices {
                guard let values = results[r].faces[f].descriptor, let descriptor = FaceDescriptor(values) else { continue }
                let key = member(r, f)
                let index = members[key] ?? {
                    members[key] = descriptions.count
                    descriptions.append([])
                    return descriptions.count - 1
                }()
                descriptions[index].append(descriptor.unitLength)
            }
        }
        let labels = try Self.groups(descriptions.map { FaceDescriptor.mean($0) }, threshold: threshold)
        var numbers: [UInt32: Int] = [:]
        for r in results.indices {
            for f in results[r].faces.indices {
                guard let index = members[member(r, f)] else { continue }
                let label = labels[index]
                results[r].faces[f].cluster = numbers[label] ?? {
                    numbers[label] = numbers.count + 1
                    return numbers.count
                }()
            }
        }
    }
}
