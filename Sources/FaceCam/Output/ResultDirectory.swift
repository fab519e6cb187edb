#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `--output-dir`: one results file per input, `DIR/NAME.jsonl` (`.csv`,
/// `.txt`), NAME as `InputNames` gives it. Each is written as
/// `NAME.jsonl.partial` and renamed once its input is finished, so a
/// finished name always means a finished file.
public struct ResultDirectory: Sendable {
    public let path: String
    public let format: ResultFormat
    private let names: InputNames

    /// Files for the inputs `names` names (the whole batch, not one shard's part); nothing is created yet.
    public init(path: String, format: ResultFormat, names: InputNames) {
        self.path = path
        self.format = format
        self.names = names
    }

    /// Creates the directory (and its parents) when missing.
    public func create() throws(SystemError) {
        try makeDirectories(path)
    }

    /// Where `input`'s results end up. `input` must be one of the batch's.
    public func finishedPath(for input: FilePath) -> String {
        path + (path.hasSuffix("/") ? "" : "/") + names[input] + "." + format.fileExtension
    }

    /// Where `input`'s results are written until it is finished.
    public func partialPath(for input: FilePath) -> String {
        finishedPath(for: input) + ".partial"
    }

    /// The paths written for `inputs`, for the check that none of them is an input.
    public func paths(for inputs: [FilePath]) -> [String] {
        inputs.flatMap { [finishedPath(for: $0), partialPath(for: $0)] }
    }

    /// True when `input`'s results were finished by an earlier run.
    public func isFinished(_ input: FilePath) -> Bool {
        (try? fileKind(finishedPath(for: input))) == .regular
    }

    /// Starts `input`'s results afresh under the partial name (a partial file
    /// left by a run that was killed is overwritten).
    public func open(for input: FilePath) throws(SystemError) -> ResultWriter {
        try ResultWriter(format: format, path: partialPath(for: input))
    }

    /// Makes `writer`'s file (opened by `open(for: input)`) durable, then gives it its finished name.
    public func finish(_ writer: ResultWriter, for input: FilePath) throws(SystemError) {
        try writer.synchronize()
        let partial = partialPath(for: input)
        try blockingSyscall("rename", path: partial) { rename(partial, finishedPath(for: input)) }
    }

    /// Removes the partial file of an input that could not be read at all.
    public func discard(for input: FilePath) {
        unlink(partialPath(for: input))
    }
}
