import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

/// --gallery: the file of enrolled people (enrol, people, and --recognize).
struct GalleryOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The gallery of enrolled people, a SQLite file readable by its owner only (default: "
            + "$XDG_DATA_HOME/facecam/gallery.sqlite, else ~/.local/share/facecam/gallery.sqlite).",
        valueName: "path"))
    var gallery: String?

    /// The gallery's path: --gallery, or the default under the user's data directory.
    func path() throws -> String {
        if let gallery { return gallery }
        guard let path = Gallery.defaultPath(environment: ProcessInfo.processInfo.environment) else {
            throw ValidationError("neither XDG_DATA_HOME nor HOME names a folder for the gallery: give --gallery PATH")
        }
        return path
    }

    /// The gallery's files (the database and its log) as files no output may overwrite, when `used`
    /// (its path unknown: nothing to guard).
    func guarded(when used: Bool) -> [FilePath] {
        guard used, let path = try? path() else { return [] }
        return ["", "-wal", "-shm"].map { FilePath(argument: path + $0) }
    }

    /// Refuses (64) an output file that is one of the gallery's `files` (`guarded`): results written
    /// there would erase everyone enrolled.
    static func refuseOverwriting(_ files: [FilePath], by outputs: [(option: String, path: String)]) throws {
        for (option, path) in outputs where OutputSafety.conflict(files: [(option, path)], directories: [], inputs: files) != nil {
            report("\(option) \(path) is the gallery of enrolled people: results written there would erase them; choose another file")
            throw Status.usage
        }
    }

    /// Refuses, in one line and status 64, a gallery that could not be made at `path` (missing): the nearest
    /// folder above it that exists must be one the user may write. Checked before any work, since the
    /// gallery is made only once there is someone to enrol.
    func refuseUncreatable(_ path: String) throws {
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" { folder.deleteLastPathComponent() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: folder.path)
        else {
            report("\(FilePath(path)): cannot make the gallery: \(FilePath(folder.path)) is not a folder you may write "
                + "(give --gallery a file in a folder you may write)")
            throw Status.usage
        }
    }

    /// `body` on the gallery, which must exist, opened for `access`; a failure is one line and status 1.
    func using<Result>(_ access: Gallery.Access, _ body: (Gallery) throws(GalleryError) -> Result) throws -> Result {
        let gallery = try open(access)
        do throws(GalleryError) {
            return try body(gallery)
        } catch {
            report(advised(error))
            throw Status.failure
        }
    }

    /// The gallery, opened for `access`; an unusable one is one line and status 64. One that others may read (made by
    /// hand, or copied) is warned about: it holds biometric data.
    func open(_ access: Gallery.Access) throws -> Gallery {
        let path = try path()
        do throws(GalleryError) {
            let gallery = try Gallery(path: path, access: access)
            if gallery.othersMayRead {
                report("warning: \(FilePath(path)) may be read by others (mode \(String(gallery.permissions, radix: 8))): "
                    + "chmod 600 \(FilePath(path)) keeps it its owner's")
            }
            return gallery
        } catch {
            report(advised(error))
            throw Status.usage
        }
    }
}

/// What --recognize, --cluster and --spare need at run time: dlib's models and the enrolled descriptors
/// (none with --cluster alone), for --cluster the clusterer, and for --spare whose faces are left out and their count.
struct Recognition {
    let models: RecognitionModels
    let enrolled: EnrolledFaces?
    var spared: (names: Set<String>, count: SparingDetector.Count)?
    /// Faces carry their descriptors (--descriptors, and --cluster until clustered).
    var keepsDescriptors = false
    var clusterer: FaceClusterer?
    /// Where --recognize read the enrolled people, for a namer that follows its changes.
    var galleryPath: String?

    /// Everyone enrolled, each once, in order.
    var people: [String] { Set(enrolled?.entries.map(\.name) ?? []).sorted() }

    /// The namer of tracked faces, which describes each track a few times rather than each face at every
    /// frame (`video` and `live`); `following` the gallery's changes (live), it takes people enrolled while it runs, and
    /// reports what it sees to `board` (live's people panel) when given. A describer that cannot be made is one line and
    /// status 64.
    func namer(following: Bool = false, board: PeopleBoard? = nil) throws -> TrackNamer {
        do throws(RecognitionError) {
            let follower = following ? galleryPath.flatMap { path in
                enrolled.map { GalleryFollower(path: path, enrolled: $0) { report($0) } }
            } : nil
            return TrackNamer(
                describer: try FaceDescriber(models: models), enrolled: enrolled, keepsDescriptors: keepsDescriptors, follower: follower,
                board: board)
        } catch {
            report(advised(error))
            throw Status.usage
        }
    }

    /// `detector`, its faces named at every frame (and the spared left out): one describer per detector (they are not thread-safe).
    func wrapping(_ detector: any FrameFaceDetector) throws(RecognitionError) -> any FrameFaceDetector {
        let recognizer = FaceRecognizer(
            detector, describer: try FaceDescriber(models: models), enrolled: enrolled, keepsDescriptors: keepsDescriptors)
        guard let spared else { return recognizer }
        return SparingDetector(recognizer, sparing: spared.names, count: spared.count)
    }
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

    /// dlib's models, the gallery's descriptors with --recognize and the clusterer with --cluster (`clustering`), loaded;
    /// nil without either. A gallery or model that cannot be used is one line and status 64: nothing was processed.
    func load(clustering: ClusterOptions? = nil) throws -> Recognition? {
        let cluster = clustering?.cluster ?? false
        guard recognize || cluster else { return nil }
        let gallery = recognize ? try galleryOptions.open(.read) : nil
        do {
            let enrolled = try gallery.map { gallery in
                let entries = try gallery.descriptors()
                if entries.isEmpty { report("warning: no one is enrolled in \(FilePath(gallery.path)): every face is unknown (facecam enrol NAME PHOTO)") }
                return EnrolledFaces(entries, tolerance: tolerance ?? Self.defaultTolerance)
            }
            return Recognition(
                models: try RecognitionModels(), enrolled: enrolled, keepsDescriptors: descriptors || cluster,
                clusterer: cluster
                    ? FaceClusterer(
                        threshold: clustering?.clusterThreshold ?? FaceClusterer.defaultThreshold, keepsDescriptors: descriptors)
                    : nil,
                galleryPath: gallery?.path)
        } catch {
            report(advised(error))
            throw Status.usage
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

    /// The gallery's descriptors and dlib's models, loaded; nil without --spare. A gallery or model that cannot
    /// be used, or a name no one enrolled under, is one line and status 64: nothing was processed.
    func load() throws -> Recognition? {
        guard !spare.isEmpty else { return nil }
        let gallery = try galleryOptions.open(.read)
        let recognition: Recognition
        do {
            recognition = Recognition(
                models: try RecognitionModels(),
                enrolled: EnrolledFaces(try gallery.descriptors(), tolerance: spareTolerance ?? Self.defaultTolerance),
                spared: (names, SparingDetector.Count()))
        } catch {
            report(advised(error))
            throw Status.usage
        }
        let enrolled = Set(recognition.people)
        if let missing = names.sorted().first(where: { !enrolled.contains($0) }) {
            report("--spare '\(missing)': no one is enrolled under that name in \(FilePath(gallery.path)) "
                + "(facecam people lists who is; facecam enrol NAME PHOTO adds someone)")
            throw Status.usage
        }
        return recognition
    }
}

/// A name the gallery would refuse, as a usage error before any work.
private func refuseBadName(_ name: String) throws {
    do throws(GalleryError) {
        try Gallery.checkName(name)
    } catch {
        throw ValidationError(error.description)
    }
}

struct Enrol: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Enrol a person in the gallery from photographs of them, one face each, so that --recognize names them.",
        discussion: """
            Each photograph is searched with YuNet, and with CenterFace when YuNet finds no face (on LFW's \
            portraits YuNet at 0.9 misses 6%, CenterFace none of those); its one face is aligned by dlib's 5-point predictor and \
            described by dlib's face-recognition network, and the 128 numbers are kept in the gallery \
            (nothing else: no picture). A photograph with no face, or with several and no --largest, is \
            refused by name; the others are enrolled, and the exit status is 1. Several photographs of \
            different days and light recognise better than one. facecam people lists, renames and forgets.
            """ + guidePointer("docs/reference/recognition.md", manual: "facecam-enrol"))

    @Argument(help: "The person's name.")
    var name: String

    @Argument(help: ArgumentHelp("Photographs of them, one face each.", valueName: "photo"))
    var photos: [String]

    @Flag(help: "Take the largest face of a photograph with several.")
    var largest = false

    @Flag(help: "Add the photographs to someone enrolled already, rather than refuse the name.")
    var add = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "YuNet's score threshold, 0 to 1: lower finds faces in hard photographs, and takes a cat or a pattern for one "
            + "more often.", valueName: "F"))
    var scoreThreshold = FaceModelKind.yunet.defaultScoreThreshold

    @OptionGroup var galleryOptions: GalleryOptions

    func validate() throws {
        if !(0...1).contains(scoreThreshold) { throw ValidationError("--score-threshold must be from 0 to 1") }
        try refuseBadName(name)
    }

    func run() throws {
        // Photographs that are not there, or are folders, are said before any model loads.
        let (photos, missing) = withoutMissing(photos.map(FilePath.init(argument:)), foldersTaken: false)
        var refused = missing
        if photos.isEmpty { throw Status.failure }
        // Made only when someone is enrolled: a run whose photographs are all refused leaves no empty gallery.
        let path = try galleryOptions.path()
        let existing = FileManager.default.fileExists(atPath: path) ? try galleryOptions.open(.write) : nil
        if existing == nil { try galleryOptions.refuseUncreatable(path) }
        if !add, let existing, (try? existing.people())?.contains(where: { $0.name == name }) == true {
            report(GalleryError.nameTaken(name, path: existing.path).description + " (or add --add)")
            throw Status.usage
        }
        let detector: any FrameFaceDetector
        // Made when YuNet first finds no face.
        var fallback: (any FrameFaceDetector)?
        let describer: FaceDescriber
        do {
            detector = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet), parameters: ModelParameters(scoreThreshold: scoreThreshold))
            describer = try FaceDescriber(models: RecognitionModels())
        } catch {
            report(advised(error))
            throw Status.usage
        }
        var descriptors: [FaceDescriptor] = []
        for photo in photos {
            do {
                let image = try ImageFile.load(photo)
                let geometry = try PreviewGeometry(frameSize: image.frame.size, orientation: image.uprightOrientation)
                var faces = try detector.detect(in: image.frame, geometry: geometry)
                if faces.isEmpty {
                    let centerFace = try fallback ?? ModelFaceDetector(
                        model: FaceModelFile(shipped: .centerface),
                        parameters: ModelParameters(scoreThreshold: FaceModelKind.centerface.defaultScoreThreshold))
                    fallback = centerFace
                    faces = try centerFace.detect(in: image.frame, geometry: geometry)
                }
                guard let face = faces.count == 1 || largest ? faces.max(by: { FaceRanking.size.value(of: $0) < FaceRanking.size.value(of: $1) }) : nil
                else {
                    report(faces.isEmpty
                        ? "\(photo): no face found: give a photograph where \(name)'s face is clear and upright"
                        : "\(photo): \(faces.count) faces: give one of \(name) alone, or add --largest to take the largest")
                    refused += 1
                    continue
                }
                guard let described = try FaceRecognizer.describe(face, in: image.frame, geometry: geometry, with: describer) else {
                    report("\(photo): the face is outside the picture")
                    refused += 1
                    continue
                }
                descriptors.append(described.descriptor)
            } catch {
                report(advised(error))
                refused += 1
            }
        }
        if !descriptors.isEmpty {
            let gallery = try existing ?? galleryOptions.open(.create)
            do throws(GalleryError) {
                try gallery.enrol(name, descriptors: descriptors, adding: add)
            } catch {
                report(advised(error))
                throw Status.failure
            }
            report("enrolled \(name) from \(descriptors.count) photograph\(descriptors.count == 1 ? "" : "s") in \(FilePath(gallery.path))")
        }
        if refused > 0 { throw Status.failure }
    }
}

struct People: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, rename and forget the people enrolled in the gallery.",
        discussion: """
            The gallery keeps, for each person, their name and one descriptor (128 numbers) per photograph \
            enrolled: no picture. forget deletes a person's descriptors for good: SQLite overwrites them in \
            the file and its log.
            """ + guidePointer("docs/reference/recognition.md", manual: "facecam-people"),
        subcommands: [List.self, Rename.self, Forget.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List who is enrolled, and from how many photographs.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case jsonl, text
        }

        @Option(help: "jsonl (one JSON object per person) or text.")
        var format: Format = .text

        @OptionGroup var galleryOptions: GalleryOptions

        func run() throws {
            for person in try galleryOptions.using(.read, { (gallery) throws(GalleryError) in try gallery.people() }) {
                try writeResult((format == .jsonl
                    ? JSONOutput.members(["name": .string(person.name), "photographs": .integer(person.descriptors)]).text
                    : "\(shownOnOneLine(person.name)): \(person.descriptors) photograph\(person.descriptors == 1 ? "" : "s")") + "\n")
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an enrolled person another name.")

        @Argument(help: "Their name now.")
        var name: String

        @Argument(help: "Their new name.")
        var newName: String

        @OptionGroup var galleryOptions: GalleryOptions

        func validate() throws { try refuseBadName(newName) }

        func run() throws {
            try galleryOptions.using(.write) { (gallery) throws(GalleryError) in try gallery.rename(name, to: newName) }
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an enrolled person and their descriptors for good.")

        @Argument(help: "Their name.")
        var name: String

        @OptionGroup var galleryOptions: GalleryOptions

        func run() throws {
            let path = try galleryOptions.using(.write) { (gallery) throws(GalleryError) in
                try gallery.forget(name)
                return gallery.path
            }
            report("forgot \(name): their descriptors are deleted from \(FilePath(path))")
        }
    }
}
