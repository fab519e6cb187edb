import ArgumentParser
import FaceCam

/// Batches that are split over machines and restarted: per-input results, shards, resume, lists.
struct BatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Write each input's results to its own file in this directory, DIR/STEM.jsonl (.csv, .txt), "
            + "renamed from a new STEM.jsonl.partial-XXXXXXXX once the input is finished. Names that clash get -2, -3, ... "
            + "in the inputs' sorted order, so every shard names an input alike. With --format yolo, voc or wider: the dataset folder "
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
        if outputDir != nil, output.output != nil {
            throw ValidationError("--output-dir and --output both say where results go: choose one")
        }
        if resume, outputDir == nil {
            throw ValidationError("--resume needs --output-dir, where finished results are found")
        }
        if writesDatasetFolder(output), resume || shard != nil {
            throw ValidationError("--format \(output.format.rawValue) writes one folder for the whole batch, which --resume and --shard "
                + "cannot split: give each run its own --output-dir")
        }
    }

    /// The batch: `arguments`, then the --files-from list. A list that cannot be read is a usage error (64).
    func inputs(arguments: [String]) throws -> [FilePath] {
        var inputs = arguments.map(FilePath.init(argument:))
        if let filesFrom {
            do {
                inputs += try InputList.read(FilePath(argument: filesFrom))
            } catch {
                report("cannot read --files-from \(filesFrom): \(error.reason); give a readable list, one path per line")
                throw Status.usage
            }
        }
        if inputs.isEmpty {
            report("no inputs: give files as arguments or with --files-from")
            throw Status.usage
        }
        return inputs
    }

    /// This task's part of `batch` (all of it without --shard), saying on standard error which part it is:
    /// a run that does a fraction of what it was given says so.
    func part(of batch: [FilePath]) -> [FilePath] {
        guard let shard else { return batch }
        let part = shard.select(batch)
        let inputs = Set(batch).count
        if part.isEmpty {
            report("shard \(shard) has no inputs: the batch has \(inputs), fewer than \(shard.count) parts")
        } else {
            report("shard \(shard): \(Set(part).count) of the batch's \(inputs) inputs; the other \(shard.count - 1) shards take the rest")
        }
        return part
    }

    /// --output-dir is a dataset folder (yolo, voc, wider's detection results), not a file per input.
    func writesDatasetFolder(_ output: OutputOptions) -> Bool {
        outputDir != nil && output.format.canWriteFolder
    }

    /// The directory of a results file per input for the batch `names` names, or nil.
    func resultDirectory(output: OutputOptions, names: InputNames, context: ExportContext) -> ResultDirectory? {
        guard !writesDatasetFolder(output) else { return nil }
        return outputDir.map { ResultDirectory(path: $0, format: output.format, names: names, context: context) }
    }
}
