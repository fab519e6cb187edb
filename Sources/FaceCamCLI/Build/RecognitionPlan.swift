import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

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
    /// reports what it sees to `board` (live's people panel) when given. A describer that cannot be made is refused (64).
    /// `clock` times the follower's reads of the gallery.
    func namer(following: Bool = false, board: PeopleBoard? = nil, clock: any MonotonicClock = SystemClock()) throws(Refusal) -> TrackNamer {
        do throws(RecognitionError) {
            let follower = following ? galleryPath.flatMap { path in
                enrolled.map { GalleryFollower(path: path, enrolled: $0, clock: clock) { report($0) } }
            } : nil
            return TrackNamer(
                describer: try FaceDescriber(models: models), enrolled: enrolled, keepsDescriptors: keepsDescriptors, follower: follower,
                board: board)
        } catch {
            throw .usage(advised(error))
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

/// The gallery and recognition, built from `GalleryOptions`, `RecognitionOptions` and `SpareOptions` (which only parse):
/// the gallery opened, dlib's models and the enrolled descriptors loaded, each before any work.
enum RecognitionPlan {
    /// The gallery's path: --gallery, or the default under the user's data directory (`environment`'s).
    static func galleryPath(_ options: GalleryOptions, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let gallery = options.gallery { return gallery }
        guard let path = Gallery.defaultPath(environment: environment) else {
            throw ValidationError("neither XDG_DATA_HOME nor HOME names a folder for the gallery: give --gallery PATH")
        }
        return path
    }

    /// The gallery's files (the database and its log) as files no output may overwrite, when `used` (its path unknown:
    /// nothing to guard).
    static func guarded(_ options: GalleryOptions, when used: Bool) -> [FilePath] {
        guard used, let path = try? galleryPath(options) else { return [] }
        return ["", "-wal", "-shm"].map { FilePath(argument: path + $0) }
    }

    /// The gallery, opened for `access`; an unusable one is refused (64). One that others may read (made by hand, or
    /// copied) is warned about: it holds biometric data.
    static func gallery(_ options: GalleryOptions, _ access: Gallery.Access) throws -> Gallery {
        let path = try galleryPath(options)
        do throws(GalleryError) {
            let gallery = try Gallery(path: path, access: access)
            if gallery.othersMayRead {
                report("warning: \(FilePath(path)) may be read by others (mode \(String(gallery.permissions, radix: 8))): "
                    + "chmod 600 \(FilePath(path)) keeps it its owner's")
            }
            return gallery
        } catch {
            throw Refusal.usage(advised(error))
        }
    }

    /// `body` on the gallery, which must exist, opened for `access`; a failure is refused (1).
    static func using<Result>(_ options: GalleryOptions, _ access: Gallery.Access, _ body: (Gallery) throws(GalleryError) -> Result) throws -> Result {
        let gallery = try gallery(options, access)
        do throws(GalleryError) {
            return try body(gallery)
        } catch {
            throw Refusal.failure(advised(error))
        }
    }

    /// Refuses (64) a gallery that could not be made at `path` (missing): the nearest folder above it that exists must be
    /// one the user may write. Checked before any work, since the gallery is made only once there is someone to enrol.
    static func refuseUncreatable(_ path: String) throws(Refusal) {
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" { folder.deleteLastPathComponent() }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: folder.path)
        else {
            throw .usage("\(FilePath(path)): cannot make the gallery: \(FilePath(folder.path)) is not a folder you may write "
                + "(give --gallery a file in a folder you may write)")
        }
    }

    /// dlib's models, the gallery's descriptors with --recognize and the clusterer with --cluster (`clustering`), loaded;
    /// nil without either. A gallery or model that cannot be used is refused (64): nothing was processed.
    static func recognition(_ options: RecognitionOptions, clustering: ClusterOptions? = nil) throws -> Recognition? {
        let cluster = clustering?.cluster ?? false
        guard options.recognize || cluster else { return nil }
        let gallery = options.recognize ? try gallery(options.galleryOptions, .read) : nil
        do {
            let enrolled = try gallery.map { gallery in
                let entries = try gallery.descriptors()
                if entries.isEmpty { report("warning: no one is enrolled in \(FilePath(gallery.path)): every face is unknown (facecam enrol NAME PHOTO)") }
                return EnrolledFaces(entries, tolerance: options.tolerance ?? RecognitionOptions.defaultTolerance)
            }
            return Recognition(
                models: try RecognitionModels(), enrolled: enrolled, keepsDescriptors: options.descriptors || cluster,
                clusterer: cluster
                    ? FaceClusterer(
                        threshold: clustering?.clusterThreshold ?? FaceClusterer.defaultThreshold, keepsDescriptors: options.descriptors)
                    : nil,
                galleryPath: gallery?.path)
        } catch {
            throw Refusal.usage(advised(error))
        }
    }

    /// The gallery's descriptors and dlib's models, loaded; nil without --spare. A gallery or model that cannot be used, or
    /// a name no one enrolled under, is refused (64): nothing was processed.
    static func sparing(_ options: SpareOptions) throws -> Recognition? {
        guard !options.spare.isEmpty else { return nil }
        let gallery = try gallery(options.galleryOptions, .read)
        let recognition: Recognition
        do {
            recognition = Recognition(
                models: try RecognitionModels(),
                enrolled: EnrolledFaces(try gallery.descriptors(), tolerance: options.spareTolerance ?? SpareOptions.defaultTolerance),
                spared: (options.names, SparingDetector.Count()))
        } catch {
            throw Refusal.usage(advised(error))
        }
        let enrolled = Set(recognition.people)
        if let missing = options.names.sorted().first(where: { !enrolled.contains($0) }) {
            throw Refusal.usage("--spare '\(missing)': no one is enrolled under that name in \(FilePath(gallery.path)) "
                + "(facecam people lists who is; facecam enrol NAME PHOTO adds someone)")
        }
        return recognition
    }
}
