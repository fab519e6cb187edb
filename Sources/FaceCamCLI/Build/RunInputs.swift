import FaceCam

/// The files a batch run reads, gathered from its arguments and --files-from (`BatchOptions`, which only parse), and the
/// shard's part of them; and the video files and streams it opens.
struct RunInputs {
    /// Every input given: the arguments, then the --files-from list.
    let batch: [FilePath]

    /// Reads --files-from; a list that cannot be read, or no input at all, is refused (64).
    init(arguments: [String], options: BatchOptions) throws(Refusal) {
        var inputs = arguments.map(FilePath.init(argument:))
        if let list = options.filesFrom {
            do {
                inputs += try InputList.read(FilePath(argument: list))
            } catch {
                throw .usage("cannot read --files-from \(list): \(error.reason); give a readable list, one path per line")
            }
        }
        if inputs.isEmpty { throw .usage("no inputs: give files as arguments or with --files-from") }
        batch = inputs
    }

    /// `shard`'s part of `all` (all of it without a shard), and the line that says which part it is: a run that does a
    /// fraction of what it was given says so.
    static func part(of all: [FilePath], shard: Shard?) -> (inputs: [FilePath], note: String?) {
        guard let shard else { return (all, nil) }
        let part = shard.select(all)
        let inputs = Set(all).count
        return (part, part.isEmpty
            ? "shard \(shard) has no inputs: the batch has \(inputs), fewer than \(shard.count) parts"
            : "shard \(shard): \(Set(part).count) of the batch's \(inputs) inputs; the other \(shard.count - 1) shards take the rest")
    }

    /// A video file, URL or standard input ("-") of video or redact, opened within `limits` and `stream`'s timeout (see the other `open`).
    static func open(
        _ file: FilePath, stream: StreamOptions, limits: InputOptions, sayingRotation: Bool = true
    ) throws(FaceCamError) -> VideoReader {
        try open(file, maximumPixels: limits.maximumVideoPixels, timeout: stream.timeout, sayingRotation: sayingRotation)
    }

    /// A video file, URL or standard input ("-"), opened; a rotation it cannot apply is reported, unless it was already
    /// (`sayingRotation` false: the same file read again).
    static func open(_ file: FilePath, maximumPixels: Int, timeout: Double, sayingRotation: Bool = true) throws(FaceCamError) -> VideoReader {
        let reader = try VideoReader(input: VideoInput(file), maximumPixels: maximumPixels, timeout: timeout)
        if sayingRotation, let warning = reader.rotationWarning { report(warning) }
        return reader
    }

    /// The usage error (64) of a zone or mask zone with a corner outside the `source`'s preview, naming both (live, whose
    /// one source is known before the first frame).
    static func polygonOutside(_ problem: PolygonOutside, source: String) -> Refusal {
        .usage("\(source): \(problem.advised): give corners inside the preview, 0,0 to \(problem.previewSize.width),\(problem.previewSize.height)")
    }
}
