import ArgumentParser
import FaceCam

/// Batches that are split over machines and restarted: per-input results, shards, resume, lists.
struct BatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Write each input's results to its own file in this directory, DIR/STEM and the format's extension (STEM.jsonl), "
            + "renamed from a new STEM.jsonl.partial-XXXXXXXX once the input is finished. Names that clash get -2, -3, ... "
            + "in the inputs' sorted order, so every shard names an input alike. With --format "
            + "\(ResultFormat.names { $0.canWriteFolder }): the dataset folder "
            + "all the inputs' frames go to.",
        valueName: "dir"))
    var outputDir: String?

    @Flag(help: "With --output-dir: skip the inputs whose finished results file exists; partial ones are redone.")
    var resume = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Process only the K-th of N parts of the inputs (K from 1 to N). The parts depend on the set of inputs "
            + "alone, not their order, so tasks on different machines split a batch without overlap.",
        valueName: "K/N"), transform: parseShard)
    var shard: Shard?

    @Option(help: ArgumentHelp(
        "Also read inputs from this file, one path per line (- for standard input); empty lines are skipped.",
        valueName: "file"))
    var filesFrom: String?

    private static func parseShard(_ text: String) throws -> Shard {
        if let shard = Shard(text) { return shard }
        throw ValidationError(
            "give K/N with 1 <= K <= N (an index that counts from 0, such as JOB_COMPLETION_INDEX, needs 1 added)")
    }

    func validate(with output: OutputOptions) throws {
        if resume, outputDir == nil {
            throw ValidationError("--resume needs --output-dir, where finished results are found")
        }
        if writesDatasetFolder(output), resume || shard != nil {
            throw ValidationError("--format \(output.format.rawValue) writes one folder for the whole batch, which --resume and --shard "
                + "cannot split: give each run its own --output-dir")
        }
    }

    /// --output-dir is a dataset folder (a folder format's), not a file per input.
    func writesDatasetFolder(_ output: OutputOptions) -> Bool {
        outputDir != nil && output.format.canWriteFolder
    }

    /// The directory of a results file per input for the batch `names` names, or nil.
    func resultDirectory(output: OutputOptions, names: InputNames, context: ExportContext) -> ResultDirectory? {
        guard !writesDatasetFolder(output) else { return nil }
        return outputDir.map { ResultDirectory(path: $0, format: output.format, names: names, context: context) }
    }
}
