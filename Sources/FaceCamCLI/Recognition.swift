import ArgumentParser
import FaceCam
import FaceCamRecognition
import Foundation

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
            portraits YuNet at \(decimal(FaceModelKind.yunet.defaultScoreThreshold)) misses 6%, CenterFace none of those); its one face is aligned by dlib's 5-point predictor and \
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
        let path = try RecognitionPlan.galleryPath(galleryOptions)
        let existing = FileManager.default.fileExists(atPath: path) ? try RecognitionPlan.gallery(galleryOptions, .write) : nil
        if existing == nil { try RecognitionPlan.refuseUncreatable(path) }
        if !add, let existing, (try? existing.people())?.contains(where: { $0.name == name }) == true {
            throw Refusal.usage(GalleryError.nameTaken(name, path: existing.path).description + " (or add --add)")
        }
        let detector: any FrameFaceDetector
        // Made when YuNet first finds no face.
        var fallback: (any FrameFaceDetector)?
        let describer: FaceDescriber
        do {
            detector = try ModelFaceDetector(model: FaceModelFile(shipped: .yunet), parameters: ModelParameters(scoreThreshold: scoreThreshold))
            describer = try FaceDescriber(models: RecognitionModels())
        } catch {
            throw Refusal.usage(advised(error))
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
            let gallery = try existing ?? RecognitionPlan.gallery(galleryOptions, .create)
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
            for person in try RecognitionPlan.using(galleryOptions, .read, { (gallery) throws(GalleryError) in try gallery.people() }) {
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
            try RecognitionPlan.using(galleryOptions, .write) { (gallery) throws(GalleryError) in try gallery.rename(name, to: newName) }
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an enrolled person and their descriptors for good.")

        @Argument(help: "Their name.")
        var name: String

        @OptionGroup var galleryOptions: GalleryOptions

        func run() throws {
            let path = try RecognitionPlan.using(galleryOptions, .write) { (gallery) throws(GalleryError) in
                try gallery.forget(name)
                return gallery.path
            }
            report("forgot \(name): their descriptors are deleted from \(FilePath(path))")
        }
    }
}
