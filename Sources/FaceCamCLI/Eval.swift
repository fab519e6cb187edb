import ArgumentParser
import FaceCam
import Foundation

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score detections against labelled faces: AP, recall, precision and false positives per image, by face height.",
        discussion: """
            The ground truth may be WIDER FACE's *_bbx_gt.txt, a COCO instances JSON, a folder of \
            Pascal VOC XML files, a CVAT 1.1 XML file, Label Studio image tasks (JSON), crowd labels \
            (labels.json: file name to boxes and hard) or facecam's JSON Lines: facecam's own --format \
            coco, voc, cvat and labelstudio exports among them. Detections may be \
            facecam's JSON Lines or COCO output, a COCO results list (with a COCO ground truth), or \
            WIDER FACE detection files (a file, or a directory of them). Without detection files, \
            eval runs the detector on the images the ground truth names, found under --image-root. \
            Matching: best score first, IoU 0.5 or more, each labelled face used once; a match with \
            an ignored face (outside WIDER's set, a COCO crowd) counts neither way. AP is at IoU 0.5, \
            interpolated at 101 recall points as COCO's evaluation does. \
            An unusable input is one line naming it, and status 64.
            """ + guidePointer("docs/evaluation.md", manual: "facecam-eval"))

    @Option(help: ArgumentHelp("The labelled faces: WIDER, COCO, VOC, CVAT, Label Studio, crowd labels or JSON Lines.", valueName: "file"))
    var groundTruth: String

    @Argument(help: ArgumentHelp("Detection files, one run each (none: eval detects itself).", valueName: "detections"))
    var detections: [String] = []

    @Option(help: ArgumentHelp(
        "Where the ground truth's image names are looked up when eval detects (default: the ground truth's directory).",
        valueName: "dir"))
    var imageRoot: String?

    @Option(help: ArgumentHelp("Draw the runs' precision-recall curves (all faces) on one chart, as SVG.", valueName: "file.svg"))
    var plot: String?

    @Option(help: "Print a table (text) or one JSON object (json).")
    var format: EvalFormat = .text

    @OptionGroup(title: "Input") var input: InputOptions
    @OptionGroup(title: "Detector") var detector: DetectorOptions

    /// With no --score-threshold, detecting to draw the whole curve goes down to this score.
    static let curveFloor = 0.3

    enum EvalFormat: String, CaseIterable, ExpressibleByArgument {
        case text, json
    }

    func validate() throws {
        // Faces already found are scored as they are: an option of the search would be ignored silently.
        if !detections.isEmpty {
            let given: [(option: String, given: Bool)] =
                [("--image-root", imageRoot != nil), ("--max-megapixels", input.maxMegapixels != nil)] + detector.searchOptionsGiven
            if let option = given.first(where: \.given)?.option {
                throw ValidationError("\(option) applies when eval detects itself: leave out the detection files, or \(option)")
            }
        }
        try detector.refuseForeignOptions()
        if let plot, !plot.lowercased().hasSuffix(".svg") { throw ValidationError("--plot writes SVG: name a .svg file") }
        // Inputs are opened by their bytes; the chart is written by its name, which must be one.
        if let plot, FilePath(argument: plot) != FilePath(plot) {
            throw ValidationError("--plot \(FilePath(argument: plot)): not UTF-8: give the chart a UTF-8 name")
        }
    }

    func run() throws {
        if let plot, let conflict = OutputSafety.conflict(
            files: [("--plot", plot)], directories: [], inputs: ([groundTruth] + detections).map { FilePath(argument: $0) }) {
            throw Refusal.usage(conflict)
        }
        let (truth, runs) = try evaluated()
        try writeResult(text(truth, runs))
        if let plot {
            let chart = PrecisionRecallPlot(
                title: "Precision and recall on \(URL(fileURLWithPath: truth.path).lastPathComponent)",
                // A file's run goes by its name, without folder or extension: yunet.jsonl is "yunet".
                runs: runs.map {
                    PrecisionRecallPlot.Run(
                        name: URL(fileURLWithPath: $0.name).deletingPathExtension().lastPathComponent, score: $0.evaluation.bands[0])
                })
            do {
                try Data(chart.svg().utf8).write(to: URL(fileURLWithPath: plot), options: .atomic)
            } catch {
                report("cannot write \(plot): \(error.localizedDescription)")
                throw Status.failure
            }
        }
    }

    /// What eval prints: the table, or the JSON object (--format json).
    func text(_ truth: FaceList, _ runs: [(name: String, evaluation: Evaluation)]) -> String {
        format == .json ? json(truth, runs) : table(truth, runs)
    }

    /// The ground truth and each run scored against it: the files given, or eval's own detections.
    func evaluated() throws -> (truth: FaceList, runs: [(name: String, evaluation: Evaluation)]) {
        let truth = try load(groundTruth)
        var runs: [(name: String, evaluation: Evaluation)] = []
        let own = detections.isEmpty ? try makeDetector() : nil
        do throws(EvaluationInputError) {
            if let own {
                let (found, operating) = try detect(in: truth, with: own)
                runs.append((detector.kind.id, try Evaluation(detections: found, truth: truth, operatingScore: operating)))
            }
            for path in detections.map(FilePath.init(argument:)) {
                let found = try FaceList.load(path, cocoImages: truth.imageIDs)
                runs.append((found.path, try Evaluation(detections: found, truth: truth, operatingScore: detector.scoreThreshold)))
            }
        } catch {
            throw Refusal.usage(advised(error))
        }
        return (truth, runs)
    }

    private func load(_ path: String) throws -> FaceList {
        do throws(EvaluationInputError) {
            let list = try FaceList.load(FilePath(argument: path))
            guard !list.images.isEmpty else {
                throw EvaluationInputError(path: list.path, reason: "names no image: give a ground truth with images")
            }
            return list
        } catch {
            throw Refusal.usage(advised(error))
        }
    }

    /// The threshold recall and precision are given at: the detector's (nil for Haar, which gives no scores).
    private var operatingScore: Double? {
        detector.kind.givesScoresAndLandmarks ? detector.modelParameters.scoreThreshold : nil
    }

    /// One detector with all of OpenCV's threads, searching below the operating threshold too (to
    /// `curveFloor`), so the curve goes on past it; one that cannot be loaded is refused (64).
    private func makeDetector() throws -> any FrameFaceDetector {
        var options = detector
        if let operatingScore { options.scoreThreshold = min(operatingScore, Self.curveFloor) }
        return try DetectorPlan(options, jobs: 1).build()[0]
    }

    /// Runs `found` over the ground truth's images, one after another.
    private func detect(in truth: FaceList, with found: any FrameFaceDetector) throws(EvaluationInputError) -> (FaceList, Double?) {
        let operating = operatingScore
        let root = imageRoot.map { FilePath(argument: $0) } ?? FilePath(argument: groundTruth).parent
        let count = truth.images.count == 1 ? "1 image" : "\(truth.images.count) images"
        report("detecting faces in the ground truth's \(count) with \(detector.kind.id)")
        var images: [ListedImage] = []
        for image in truth.images {
            let path = root.appending(Array(image.name.utf8))
            do throws(FaceCamError) {
                let still = try ImageFile.load(path, maximumPixels: input.maximumPixels)
                var settings = GeometrySettings()
                settings.orientation = still.uprightOrientation
                let faces = try found.detect(in: still.frame, geometry: try settings.geometry(for: still.frame.size, source: path.description))
                images.append(ListedImage(name: image.name, faces: faces.map {
                    ListedFace(box: $0.preview, score: $0.score ?? 1)
                }))
            } catch {
                throw EvaluationInputError(
                    path: truth.path, reason: "\(error.advised): eval looks up its images under --image-root \(root)")
            }
        }
        return (FaceList(path: truth.path, format: .jsonl, images: images, listsEveryImage: true), operating)
    }

    private func table(_ truth: FaceList, _ runs: [(name: String, evaluation: Evaluation)]) -> String {
        let faces = truth.images.reduce(0) { $0 + $1.faces.count }
        let ignored = truth.images.reduce(0) { $0 + $1.faces.filter(\.ignored).count }
        let counted = [(truth.images.count, "image"), (faces, "face")].map { $0 == 1 ? "1 \($1)" : "\($0) \($1)s" }
        var text = "ground truth: \(truth.path) (\(truth.format.rawValue)), \(counted[0]), \(counted[1])"
            + (ignored > 0 ? " (\(ignored) ignored)" : "") + "\n"
        for run in runs {
            let at = run.evaluation.operatingScore.map { "recall, precision and false positives at score >= \(decimal($0))" }
                ?? "recall, precision and false positives of all its detections"
            text += "\n\(run.name): \(at)\n"
            text += "band               faces     AP  recall  precision  false/image\n"
            for band in run.evaluation.bands {
                let columns = [
                    right(String(band.faces), 8), right(fixed(band.averagePrecision), 7), right(fixed(band.recall), 8),
                    right(fixed(band.precision), 11), right(String(format: "%.2f", band.falsePositivesPerImage), 13),
                ]
                text += band.band.name.padding(toLength: 16, withPad: " ", startingAt: 0) + columns.joined() + "\n"
            }
        }
        return text
    }

    private func json(_ truth: FaceList, _ runs: [(name: String, evaluation: Evaluation)]) -> String {
        let entries = runs.map { run -> JSONOutput in
            let bands = run.evaluation.bands.map { band -> JSONOutput in
                .members([
                    "band": .string(band.band.name), "faces": .integer(band.faces), "ap": number(band.averagePrecision),
                    "recall": number(band.recall), "precision": number(band.precision), "hits": .integer(band.hits),
                    "false_positives": .integer(band.falsePositives), "false_positives_per_image": number(band.falsePositivesPerImage),
                ])
            }
            return .members([
                "detections": .string(run.name), "operating_score": run.evaluation.operatingScore.map(JSONOutput.decimal) ?? .null,
                "bands": .array(bands),
            ])
        }
        return JSONOutput.members([
            "ground_truth": .string(truth.path), "format": .string(truth.format.rawValue),
            "images": .integer(truth.images.count), "runs": .array(entries),
        ]).text + "\n"
    }

    /// "-" for a figure that does not exist (a band without faces, no detection), else three decimals.
    private func fixed(_ value: Double) -> String {
        value.isNaN ? "-" : String(format: "%.3f", value)
    }

    private func right(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// null for a figure that does not exist (a band without faces, no detection).
    private func number(_ value: Double) -> JSONOutput {
        value.isNaN ? .null : .decimal(value)
    }
}

extension Eval.EvalFormat: CustomStringConvertible {
    var description: String { rawValue }
}
