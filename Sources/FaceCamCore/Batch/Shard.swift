/// `--shard K/N`: the K-th of N parts of a batch (K counts from 1), for
/// schedulers that run one task per part (Slurm job arrays, Kubernetes
/// Indexed Jobs, GNU parallel).
///
/// The parts depend only on the set of inputs, never on their order: the
/// distinct paths, sorted by their bytes, are dealt out in turn, the first to
/// part 1, the second to part 2, ..., the N+1-th to part 1 again. Every task
/// given the same inputs therefore takes a part of the same partition, the
/// parts differ in size by one input at most, and a path given twice goes to
/// one part only.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// From 1 to `count`.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// "K/N", as the option takes it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let index = Int(parts[0]), let count = Int(parts[1])
        else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// This part of `inputs`, in the order given.
    public func select(_ inputs: [FilePath]) -> [FilePath] {
        let ranked = FilePath.distinctInByteOrder(inputs)
        let mine = Set(ranked.enumerated().filter { $0.offset % count == index - 1 }.map(\.element))
        return inputs.filter { mine.contains($0) }
    }
}

extension FilePath {
    /// Each of `paths` once, sorted by their bytes: the order in which a batch's inputs are dealt
    /// out to shards and given names, the same whatever the order they were listed in.
    static func distinctInByteOrder(_ paths: [FilePath]) -> [FilePath] {
        Set(paths).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }
}
