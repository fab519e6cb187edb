import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// --gallery: the file of enrolled people (enrol, people, and --recognize).
struct GalleryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The gallery of enrolled people, a SQLite file readable by its owner only (default: "
            + "\(Gallery.defaultPathDescription)).",
        valueName: "path"))
    var gallery: String?
}

/// --recognize, --tolerance, --gallery and --descriptors: the commands that write face records (detect, video, live).
struct RecognitionOptions: ParsableArguments {
    /// The largest distance between unit-length descriptors taken for the same person, chosen on LFW for a
    /// gallery of a hundred people (docs/benchmarks.md): a gallery, unlike a pair, gives each stranger many chances.
    static let defaultTolerance = 0.32

    @Flag(help: ArgumentHelp(
        "All detectors: name each face after the nearest person enrolled in the gallery (facecam enrol), or unknown, with "
            + "the distance (docs/reference/recognition.md): dlib's 5-point alignment and face descriptor, about 60 ms a face; "
            + "video and live describe each track three times and name its faces after them."))
    var recognize = false

    @OptionGroup var galleryOptions: GalleryOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --recognize: the largest distance, 0 to 2, at which a face is taken for an enrolled person; lower names "
            + "fewer strangers and fewer of the enrolled (default: \(decimal(Self.defaultTolerance))).", valueName: "F"))
    var tolerance: Double?

    @Flag(help: ArgumentHelp(
        "With --recognize (or --cluster, in detect and video), JSON Lines: each face's descriptor too (\"descriptor\", 128 numbers: the mean of dlib's for the face and its mirror image; in video "
            + "and live, the faces described at their frame), for comparing or grouping faces with other tools. It is biometric "
            + "data: keep the output as you keep the gallery."))
    var descriptors = false

    func validate() throws {
        if !recognize, let option = [("--tolerance", tolerance != nil), ("--gallery", galleryOptions.gallery != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes --recognize: add --recognize, or leave \(option) out")
        }
        if let tolerance, !(0...2).contains(tolerance) { throw ValidationError("--tolerance must be from 0 to 2") }
    }

    /// Descriptors are of the faces described: with --recognize, or the `clustering` of the commands that have it.
    func validateDescriptors(clustering: ClusterOptions?) throws {
        guard descriptors, !recognize, clustering?.cluster != true else { return }
        throw ValidationError(clustering == nil
            ? "--descriptors are of the faces --recognize describes: add --recognize, or leave --descriptors out"
            : "--descriptors are of the faces --recognize or --cluster describes: add one, or leave --descriptors out")
    }

    /// Formats with a place for a face's name (COCO's and CVAT's as attributes): the others would drop them silently.
    func validate(format: ResultFormat) throws {
        if recognize, !format.holds(.identity) {
            throw ValidationError("--format \(format.rawValue) has no place for the names --recognize gives: use "
                + ResultFormat.names { $0.holds(.identity) })
        }
        if descriptors, !format.holds(.descriptor) {
            throw ValidationError("--descriptors are written in JSON Lines only: leave --format out, or give --format jsonl")
        }
    }
}

/// --cluster and --cluster-threshold: detect and video, which write their records when the run ends (live writes as it goes).
struct ClusterOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "JSON Lines, and COCO and CVAT attributes: give each face a \"cluster\" number, "
            + "the same for the faces of one person across the run, enrolled or not (dlib's Chinese whispers over "
            + "the faces' descriptors; in video, over the tracks); the records are written when the run ends. "
            + "About 60 ms a face described (docs/reference/recognition.md)."))
    var cluster = false

    /// Its default, chosen on LFW for few joins of two people (docs/benchmarks.md), is the clusterer's.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --cluster: the largest distance, above 0 and at most 2, at which two faces are joined; lower splits one person more "
            + "often, higher joins two people more often (default: \(decimal(FaceClusterer.defaultThreshold))).", valueName: "F"))
    var clusterThreshold: Double?

    func validate() throws {
        if clusterThreshold != nil, !cluster {
            throw ValidationError("--cluster-threshold tunes --cluster: add --cluster, or leave --cluster-threshold out")
        }
        if let clusterThreshold, !(clusterThreshold > 0 && clusterThreshold <= 2) {
            throw ValidationError("--cluster-threshold must be more than 0 and at most 2")
        }
    }

    /// A format with a place for the clusters (COCO's and CVAT's as attributes): the others would drop them silently.
    func validate(format: ResultFormat) throws {
        if cluster, !format.holds(.cluster) {
            throw ValidationError("--format \(format.rawValue) has no place for the clusters --cluster gives: use "
                + ResultFormat.names { $0.holds(.cluster) })
        }
    }
}

/// --spare, --spare-tolerance and --gallery: redact leaves enrolled people visible.
struct SpareOptions: ParsableArguments {
    /// Stricter than --recognize's (docs/benchmarks.md): a stranger taken for a spared person is left visible.
    static let defaultTolerance = 0.27

    @Option(help: ArgumentHelp(
        "Leave these enrolled people (facecam enrol) visible, everyone else hidden: a face is left visible only when its own "
            + "descriptor, in that frame, lies within --spare-tolerance of theirs and nearer theirs than anyone else's; about 60 ms "
            + "a face. Names separated by commas, or the option repeated.",
        valueName: "name,..."))
    var spare: [String] = []

    @OptionGroup var galleryOptions: GalleryOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "With --spare: the largest distance, 0 to 2, at which a face is taken for a spared person; higher leaves them visible "
            + "more often, and strangers too (default: \(decimal(Self.defaultTolerance))).", valueName: "F"))
    var spareTolerance: Double?

    /// The names given, split at commas, each once.
    var names: Set<String> { Set(spare.flatMap { $0.split(separator: ",").map(String.init) }) }

    func validate() throws {
        if spare.isEmpty, let option = [("--spare-tolerance", spareTolerance != nil), ("--gallery", galleryOptions.gallery != nil)]
            .first(where: \.1)?.0 {
            throw ValidationError("\(option) tunes --spare: add --spare NAME, or leave \(option) out")
        }
        if spare.contains(where: { $0.split(separator: ",").count != $0.split(separator: ",", omittingEmptySubsequences: false).count }) {
            throw ValidationError("--spare takes enrolled names separated by commas, none empty: facecam people lists them")
        }
        if let spareTolerance, !(0...2).contains(spareTolerance) { throw ValidationError("--spare-tolerance must be from 0 to 2") }
    }
}
