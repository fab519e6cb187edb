import ArgumentParser
import FaceCam

/// What a face record reports beyond its box, and how many records a frame gets: the options of the
/// commands that write face records (detect, video, live). redact writes none and eval scores every
/// face, so neither has these.
struct FaceReportOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "All detectors: report at most N faces a frame, the best by --by, in the usual order (default: all).",
        valueName: "N"))
    var maxFaces: Int?

    @Option(help: ArgumentHelp(
        "What --max-faces keeps the best of: size (the largest boxes), score or quality (\(DetectorKind.networkNames); quality implies "
            + "--quality) (default: \(Self.defaultRanking.rawValue)).",
        valueName: "size|score|quality"))
    var by: FaceRanking?

    static let defaultRanking = FaceRanking.size

    @Flag(help: ArgumentHelp(
        "\(DetectorKind.networkNames): report each face's head pose, roll, yaw and pitch in degrees (docs/reference/faces.md): "
            + "two more YuNet searches of 192x192 pixels per face."))
    var pose = false

    @Flag(help: ArgumentHelp(
        "\(DetectorKind.networkNames): report each face's quality, 0 to 1, from its sharpness, size, pose and score (docs/reference/faces.md); "
            + "implies --pose, and costs a 112x112 crop per face more."))
    var quality = false

    @OptionGroup var recognition: RecognitionOptions

    func validate() throws {
        if let maxFaces, maxFaces < 1 { throw ValidationError("--max-faces must be 1 or more") }
    }

    /// Checks against the detector and what else the command does. `hiding` names what hides every
    /// face found (--redact), which a count limit would leave visible; `minimumFaces` is --min-faces,
    /// which a frame could not reach above the limit.
    func validate(with detector: DetectorOptions, hiding: String?, minimumFaces: Int?) throws {
        if let hiding, maxFaces != nil || by != nil {
            throw ValidationError("\(hiding) hides every face found: leave --max-faces and --by out")
        }
        if by != nil && maxFaces == nil { throw ValidationError("--by says which faces --max-faces keeps: add --max-faces N, or leave --by out") }
        if !detector.kind.givesScoresAndLandmarks {
            let kind = detector.kind.id
            if let option = [("--pose", pose), ("--quality", quality), ("--by quality", by == .quality)].first(where: \.1)?.0 {
                throw ValidationError(
                    "\(option) reads the landmarks the \(kind) detector does not give: add --detector "
                        + listed(DetectorKind.all.filter(\.givesScoresAndLandmarks).map(\.id), "or") + ", or leave \(option) out")
            }
            if by == .score {
                throw ValidationError("--by score needs scores, which the \(kind) detector does not give: use --by size, or --detector yunet")
            }
        }
        if let minimumFaces, let maxFaces, minimumFaces > maxFaces {
            throw ValidationError("--min-faces \(minimumFaces) cannot be met with --max-faces \(maxFaces): lower --min-faces or raise --max-faces")
        }
    }

    var report: FaceReport { FaceReport(maxFaces: maxFaces, ranking: by ?? Self.defaultRanking, pose: pose, quality: quality) }
}

/// --jobs: the commands that detect many frames at once (detect, video, redact). live detects its
/// newest frame alone, and eval its images one by one.
struct JobsOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Frames detected in parallel, at most twice the cores this process may "
            + "use (default: those cores, so taskset and a scheduler's CPU binding count; Haar's fast mode uses one; detect "
            + "on one photograph and redact on photographs alone, \(Self.photographJobs), on every core's threads).", valueName: "N"))
    var jobs: Int?

    /// A photograph is one frame: a second job would only compile its networks again, on the core the first needs.
    static let photographJobs = 1

    func validate() throws {
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be from 1 to 256") }
    }
}
