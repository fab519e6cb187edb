import ArgumentParser
import FaceCam
import Foundation

#if canImport(Glibc)
import Glibc
#endif

@main
struct FaceCamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facecam",
        abstract: "Find faces in images, video files and live cameras, and map their boxes into a preview's coordinates "
            + "(facecam \(facecamVersion)).",
        discussion: """
            Exit statuses: 0 success; 1 an input or output failed (the others were still \
            processed); 2 some frame had fewer faces than --min-faces; 3-9 camera failures and \
            --exit-on (see facecam live --help); 64 usage error; 130, 143 stopped by SIGINT, SIGTERM.
            """ + guidePointer("README.md and docs/", manual: "facecam"),
        version: facecamVersion,
        subcommands: [Detect.self, Video.self, Live.self, Redact.self, Eval.self, Devices.self, Map.self])

    /// ArgumentParser's own main, but a usage error is one line on standard error, and `--version`
    /// names the inference engine the DNN detectors would run on.
    static func main() {
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(facecamVersion)
            print(engineReport())
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let status = exitCode(for: error)
            // Help, version and statuses whose message was already reported go through unchanged.
            guard status == Status.usage, !(error is ExitCode) else { exit(withError: error) }
            report(oneLine(message(for: error)) + " (see 'facecam help')")
            exit(withError: Status.usage)
        }
    }

    /// The engine line of `--version`: OpenVINO's version and where it was loaded from, or why it was not.
    static func engineReport() -> String {
        do {
            let openVINO = try OpenVINORuntime.load()
            return "inference: \(InferenceEngine.openvino.name) \(openVINO.version) from \(openVINO.directory), OpenCV \(InferenceEngine.openCVVersion)"
        } catch {
            return "inference: OpenCV \(InferenceEngine.openCVVersion) (\(error.description))"
        }
    }

    /// "Please provide one of the following:" and its bulleted lines, folded into one line.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let choices = lines.dropFirst().filter { $0.hasPrefix("- ") }.map { $0.dropFirst(2) }
        return ([lines.first ?? ""] + (choices.isEmpty ? [] : [choices.joined(separator: ", ")])).joined(separator: " ")
    }
}

/// Exit statuses beyond ArgumentParser's own (0 success, 64 usage error).
enum Status {
    static let failure = ExitCode(1)
    static let tooFewFaces = ExitCode(2)
    static let usage = ExitCode.validationFailure
}

/// Prints one line on standard error, prefixed with the program's name.
func report(_ message: String) {
    var line = "facecam: \(message)\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
