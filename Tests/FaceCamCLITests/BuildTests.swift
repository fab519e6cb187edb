import ArgumentParser
import FaceCam
@testable import FaceCamCLI
import FaceCamCore
import FaceCamRecognition
import Foundation
import Testing

/// What is built from parsed options before any work (`Sources/FaceCamCLI/Build`): the inputs, the pictures, the MQTT
/// connection, the output refusals and the gallery, each refusal checked line for line, in this process. The binary says a
/// `Refusal` as it says any usage error (`BatchCommandTests.badBatchOptionsAreUsageErrors` runs it).
struct BuildTests {
    private static func parse<Options: ParsableArguments>(_ type: Options.Type, _ arguments: [String]) throws -> Options {
        try Options.parse(arguments)
    }

    private static func refusal(_ body: () throws -> Void) -> Refusal? {
        do {
            try body()
            return nil
        } catch {
            return error as? Refusal
        }
    }

    // MARK: inputs

    @Test func theListFollowsTheArgumentsAndItsEmptyLinesAreSkipped() throws {
        let directory = try temporaryDirectory("build-list")
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = directory.appendingPathComponent("list").path
        try Data("b.avi\n\nc d.avi\n".utf8).write(to: URL(fileURLWithPath: list))
        let inputs = try RunInputs(arguments: ["a.avi"], options: Self.parse(BatchOptions.self, ["--files-from", list]))
        #expect(inputs.batch.map(\.description) == ["a.avi", "b.avi", "c d.avi"])
    }

    @Test func aListThatCannotBeReadOrNoInputAtAllIsRefused() throws {
        let unreadable = Self.refusal { _ = try RunInputs(arguments: [], options: Self.parse(BatchOptions.self, ["--files-from", "/nonexistent/list"])) }
        #expect(unreadable == .usage("cannot read --files-from /nonexistent/list: No such file or directory; give a readable list, one path per line"))
        let none = Self.refusal { _ = try RunInputs(arguments: [], options: Self.parse(BatchOptions.self, ["--files-from", "/dev/null"])) }
        #expect(none == .usage("no inputs: give files as arguments or with --files-from"))
    }

    /// The shards split the batch without overlap or gap, each saying its part; one with nothing to do says so.
    @Test func eachShardSaysItsPart() throws {
        let all = ["a", "b", "c", "d", "e"].map { FilePath(argument: $0 + ".avi") }
        var seen: [FilePath] = []
        for index in 1...2 {
            let (part, note) = RunInputs.part(of: all, shard: Shard("\(index)/2"))
            seen += part
            #expect(note == "shard \(index)/2: \(part.count) of the batch's 5 inputs; the other 1 shards take the rest")
        }
        #expect(seen.sorted { $0.description < $1.description } == all)
        let (none, note) = RunInputs.part(of: Array(all.prefix(2)), shard: Shard("3/3"))
        #expect(none.isEmpty && note == "shard 3/3 has no inputs: the batch has 2, fewer than 3 parts")
        let whole = RunInputs.part(of: all, shard: nil)
        #expect(whole.inputs == all && whole.note == nil)
    }

    // MARK: pictures

    @Test func imageModeAloneLoadsItsPicture() throws {
        let options = try Self.parse(MaskOptions.self, ["--image", fixture("images/coffee.png"), "--shape", "box"])
        let image = try RunPictures.masks(options, mode: .image)
        #expect(image.replacement != nil && image.shape == .box)
        #expect(try RunPictures.masks(options, mode: .blur).replacement == nil)
        let missing = Self.refusal { _ = try RunPictures.masks(Self.parse(MaskOptions.self, ["--image", "/nonexistent.png"]), mode: .image) }
        #expect(missing == .usage("--image /nonexistent.png: cannot read (open: No such file or directory)"))
    }

    @Test func theOverlayComesFirstThenTheMasksThenOutlines() throws {
        let sunglasses = fixture("overlay/sunglasses.png")
        let redaction = try Self.parse(PreviewRedactionOptions.self, ["--redact", "pixelate", "--outline"])
        let overlay = try RunPictures.marking(overlay: Self.parse(OverlayOptions.self, ["--overlay", sunglasses]), redaction: redaction)
        guard case .overlay(let laid) = overlay else { Issue.record("\(overlay)"); return }
        #expect(laid.anchor == OverlayOptions.defaultAnchor)
        let placed = try RunPictures.marking(overlay: Self.parse(OverlayOptions.self, [
            "--overlay", sunglasses, "--overlay-anchor", "mouth", "--overlay-points", "10,20,30.5,20"]))
        guard case .overlay(let mouth) = placed else { Issue.record("\(placed)"); return }
        #expect(mouth.anchor == .mouth && mouth.points == [Point(x: 10, y: 20), Point(x: 30.5, y: 20)])
        #expect(mouth.points != laid.points)
        let none = try Self.parse(OverlayOptions.self, [])
        #expect(try RunPictures.marking(overlay: none) == .outline)
        guard case .redact(let settings, outline: true) = try RunPictures.marking(overlay: none, redaction: redaction) else {
            Issue.record("not redacted with outlines"); return
        }
        #expect(settings.mode == .pixelate)
        let opaque = fixture("images/grace_hopper.jpg")
        let refused = Self.refusal { _ = try RunPictures.marking(overlay: Self.parse(OverlayOptions.self, ["--overlay", opaque])) }
        #expect(refused == .usage(
            "--overlay \(opaque): the overlay has no alpha channel, so it would hide the whole picture around the face: give a PNG with transparency"))
    }

    // MARK: MQTT

    @Test func thePasswordComesFromItsFileAndTheUserFromTheEnvironment() throws {
        let directory = try temporaryDirectory("build-mqtt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("password").path
        try Data("s3cret word\nsecond line\n".utf8).write(to: URL(fileURLWithPath: file))
        let options = try Self.parse(MQTTOptions.self, ["--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-password-file", file])
        let settings = try #require(try MQTTConnectionPlan.settings(
            options, cameraName: "door", environment: [MQTTConnectionPlan.usernameVariable: "camera"]))
        #expect(settings.password == "s3cret word" && settings.endpoint.username == "camera")
        #expect(settings.clientID == "facecam-door-\(getpid())")
        #expect(try MQTTConnectionPlan.settings(Self.parse(MQTTOptions.self, []), cameraName: "door", environment: [:]) == nil)
    }

    /// A password file whose first line is not UTF-8, is longer than MQTT allows, or that cannot be read, a CA file that
    /// cannot be read, and a password without a user are refused (64), saying which.
    @Test func unusableCredentialsSayWhy() throws {
        let directory = try temporaryDirectory("build-mqtt-refused")
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = directory.appendingPathComponent("binary"), long = directory.appendingPathComponent("long")
        try Data([0x70, 0xff, 0xfe, 0x0a]).write(to: binary)
        try Data(repeating: UInt8(ascii: "p"), count: 70_000).write(to: long)
        for (file, reason) in [(binary.path, "its first line is not UTF-8 text"), (long.path, "its first line is longer than MQTT's 65,535 bytes"),
                               (directory.path, "cannot be read (Is a directory)")] {
            let refused = Self.refusal {
                _ = try MQTTConnectionPlan.settings(
                    Self.parse(MQTTOptions.self, ["--mqtt", "mqtt://camera@127.0.0.1:1", "--mqtt-password-file", file]), cameraName: "c",
                    environment: [:])
            }
            #expect(refused == .usage("--mqtt-password-file \(file): \(reason); name a file whose first line is the password"))
        }
        let ca = Self.refusal {
            _ = try MQTTConnectionPlan.settings(
                Self.parse(MQTTOptions.self, ["--mqtt", "mqtts://camera@127.0.0.1:1", "--mqtt-ca", "/nonexistent.pem"]), cameraName: "c",
                environment: [:])
        }
        #expect(ca == .usage("--mqtt-ca /nonexistent.pem: cannot be read; name a PEM file of CA certificates"))
        let userless = Self.refusal {
            _ = try MQTTConnectionPlan.settings(
                Self.parse(MQTTOptions.self, ["--mqtt", "mqtt://127.0.0.1:1"]), cameraName: "c", environment: [MQTTConnectionPlan.passwordVariable: "x"])
        }
        #expect(userless == .usage("--mqtt: a password needs a user: write it in the URL (mqtt://USER@HOST) or in FACECAM_MQTT_USERNAME"))
    }

    // MARK: outputs

    @Test func anOutputThatWouldOverwriteAnInputOrTheGalleryIsRefused() throws {
        let directory = try temporaryDirectory("build-outputs")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = fixture("images/two-faces.jpg"), file = directory.appendingPathComponent("file").path
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let overwriting = Self.refusal {
            try RunOutputs.refuseOverwriting([FilePath(argument: input)], by: Self.parse(OutputOptions.self, ["-o", input]))
        }
        #expect(overwriting?.status == Status.usage)
        #expect(overwriting?.line.hasPrefix("--output \(input) is also an input (\(input)): it would be overwritten before it is read") == true)
        let folder = Self.refusal { try RunOutputs.refuseOverwriting([], by: Self.parse(OutputOptions.self, ["--annotate", file])) }
        #expect(folder == .usage("--annotate \(file) is a file, not a folder: give a folder (made when missing)"))
        let gallery = directory.appendingPathComponent("g.sqlite").path
        _ = FileManager.default.createFile(atPath: gallery, contents: Data())
        let erasing = Self.refusal {
            try RunOutputs.refuseOverwriting(
                [], by: Self.parse(OutputOptions.self, ["-o", gallery]), gallery: [FilePath(argument: gallery)])
        }
        #expect(erasing == .usage("--output \(gallery) is the gallery of enrolled people: results written there would erase them; choose another file"))
        try RunOutputs.refuseOverwriting([FilePath(argument: input)], by: Self.parse(OutputOptions.self, ["-o", directory.path + "/out.jsonl"]))
    }

    @Test func inputsMustLieUnderTheImageRoot() throws {
        let images = fixture("images"), photo = fixture("images/two-faces.jpg"), clip = fixture("video/pan-zoom.avi")
        try RunOutputs.refuseInputsOutside([FilePath(argument: photo)], imageRoot: images)
        try RunOutputs.refuseInputsOutside([FilePath(argument: clip)], imageRoot: nil)
        #expect(Self.refusal { try RunOutputs.refuseInputsOutside([FilePath(argument: clip)], imageRoot: images) }
            == .usage("\(clip) is not inside --image-root \(images): give inputs under it, or another --image-root"))
        #expect(Self.refusal { try RunOutputs.refuseInputsOutside([FilePath(argument: photo)], imageRoot: photo) }
            == .usage("--image-root \(photo) is not a directory: give the dataset's image folder"))
    }

    /// An output folder that cannot be made is refused as a failure (1): the options were right, the machine could not.
    @Test func anOutputThatCannotBeOpenedIsAFailure() throws {
        let directory = try temporaryDirectory("build-open")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file").path
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let context = RunOutputs.context(detector: try Self.parse(DetectorOptions.self, []), faces: FaceReport(), video: false)
        let refused = Self.refusal { _ = try RunOutputs(Self.parse(OutputOptions.self, ["--annotate", file + "/annotated"]), context: context) }
        #expect(refused == .failure("cannot open \(file): Not a directory"))
    }

    @Test func eventsAreWrittenAndRunAsAsked() throws {
        let hooked = RunOutputs.events(try Self.parse(TrackingOptions.self, ["--events", "--on-event", "echo $FACECAM_EVENT", "--on-event-jobs", "2"]), exitOn: .enter, clock: ManualClock())
        #expect(hooked.write && hooked.exitOn == .enter)
        #expect(hooked.hooks?.command == "echo $FACECAM_EVENT" && hooked.hooks?.concurrency == 2)
        #expect(hooked.hooks?.timeout == TrackingOptions.onEventTimeoutDefault)
        let quiet = RunOutputs.events(try Self.parse(TrackingOptions.self, []), clock: ManualClock())
        #expect(!quiet.write && quiet.hooks == nil && quiet.exitOn == nil)
    }

    // MARK: the gallery

    @Test func aGalleryThatCannotBeOpenedOrMadeIsRefused() throws {
        let missing = Self.refusal { _ = try RecognitionPlan.gallery(Self.parse(GalleryOptions.self, ["--gallery", "/nonexistent/g.sqlite"]), .read) }
        #expect(missing == .usage(
            "/nonexistent/g.sqlite: cannot open the gallery: no such file (facecam enrol makes it) (give --gallery a file in a folder you may write)"))
        let directory = try temporaryDirectory("build-gallery")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file").path
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        #expect(Self.refusal { try RecognitionPlan.refuseUncreatable(file + "/more/g.sqlite") } == .usage(
            "\(file)/more/g.sqlite: cannot make the gallery: \(file) is not a folder you may write (give --gallery a file in a folder you may write)"))
        try RecognitionPlan.refuseUncreatable(directory.path + "/new/folder/g.sqlite")
    }

    /// --spare names someone enrolled, or nothing runs.
    @Test func sparingSomeoneNotEnrolledIsRefused() throws {
        let directory = try temporaryDirectory("build-spare")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("g.sqlite").path
        let descriptor = try #require(FaceDescriptor([Float](repeating: Float(1 / Double(FaceDescriptor.count).squareRoot()), count: FaceDescriptor.count)))
        try Gallery(path: path, access: .create).enrol("alice", descriptors: [descriptor], adding: false)
        let spared = try #require(try RecognitionPlan.sparing(Self.parse(SpareOptions.self, ["--spare", "alice", "--gallery", path])))
        #expect(spared.people == ["alice"] && spared.spared?.names == ["alice"])
        let refused = Self.refusal { _ = try RecognitionPlan.sparing(Self.parse(SpareOptions.self, ["--spare", "alice,bob", "--gallery", path])) }
        #expect(refused == .usage("--spare 'bob': no one is enrolled under that name in \(path) "
            + "(facecam people lists who is; facecam enrol NAME PHOTO adds someone)"))
        #expect(try RecognitionPlan.sparing(Self.parse(SpareOptions.self, [])) == nil)
    }
}
