#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `--output-dir`: one results file per input, `DIR/NAME.jsonl` (`.csv`,
/// `.txt`, `.json`), NAME as `InputNames` gives it. Each is written as a
/// `PartialFile` and renamed once its input is finished, so a finished name
/// always means a finished file.
public struct ResultDirectory: Sendable {
    public let path: String
    public let format: ResultFormat
    private let names: InputNames
    private let context: ExportContext

    /// Files for the inputs `names` names (the whole batch, not one shard's part); nothing is created
    /// yet. Dataset formats name images as `context` says.
    public init(path: String, format: ResultFormat, names: InputNames, context: ExportContext = ExportContext()) {
        self.path = path
        self.format = format
        self.names = names
        self.context = context
    }

    /// Creates the directory (and its parents) when missing.
    public func create() throws(SystemError) {
        try makeDirectories(path)
    }

    /// Where `input`'s results end up. `input` must be one of the batch's.
    public func finishedPath(for input: FilePath) -> String {
        path + (path.hasSuffix("/") ? "" : "/") + names[input] + "." + format.fileExtension
    }

    /// The paths written for `inputs`, for the check that none of them is an input.
    public func paths(for inputs: [FilePath]) -> [String] {
        inputs.map(finishedPath(for:))
    }

    /// True when `input`'s results were finished by an earlier run.
    public func isFinished(_ input: FilePath) -> Bool {
        (try? fileKind(finishedPath(for: input))) == .regular
    }

    /// Removes the partial files of `input`'s results that a run killed with SIGKILL left (`--resume`).
    public func removeLeftovers(for input: FilePath) throws(SystemError) {
        try PartialFile.removeLeftovers(of: finishedPath(for: input))
    }

    /// Starts `input`'s results in a new partial file of its own; it is removed unless `finish`ed.
    public func open(for input: FilePath) throws(SystemError) -> ResultWriter {
        try ResultWriter(format: format, partial: PartialFile(for: finishedPath(for: input)), context: context)
    }

    /// Makes `writer`'s file (opened by `open(for:)`) durable, then gives it its finished name.
    public func finish(_ writer: ResultWriter) throws(SystemError) {
        try writer.finish()
    }

    /// Removes `writer`'s file: its input could not be read, or the run is stopping.
    public func discard(_ writer: ResultWriter) {
        writer.discard()
    }
}
