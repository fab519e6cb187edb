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
            report(usageMessage(for: error, arguments: Array(CommandLine.arguments.dropFirst())))
            exit(withError: Status.usage)
        }
    }

    /// A usage error as one line that points to the help of the command it is about: an unknown
    /// command gets the nearest one's name, and an unknown option is named before a missing argument
    /// (ArgumentParser reports the missing argument first).
    static func usageMessage(for error: Error, arguments: [String]) -> String {
        let names = configuration.subcommands.map { $0._commandName }
        let command = arguments.first { !$0.hasPrefix("-") }
        guard let command, names.contains(command) else {
            if let command, let nearest = nearest(to: command, among: names) {
                return "unknown command '\(command)': did you mean '\(nearest)'? (see 'facecam --help')"
            }
            if let command {
                return "unknown command '\(command)': the commands are \(names.joined(separator: ", ")) (see 'facecam --help')"
            }
            return oneLine(message(for: error)) + " (see 'facecam --help')"
        }
        var shown = oneLine(message(for: error))
        // ArgumentParser checks arguments and validate() before it finds options it does not know.
        if !shown.hasPrefix("Unknown option"), let known = optionNames(of: command),
           let unknown = arguments.first(where: { argument in
               let name = String(argument.prefix { $0 != "=" })
               return name.count > 1 && name.hasPrefix("-") && !name.dropFirst().first!.isNumber && name != "--" && !known.contains(name)
           }) {
            let name = String(unknown.prefix { $0 != "=" })
            shown = "Unknown option '\(name)'" + (nearest(to: name, among: known.sorted()).map { ". Did you mean '\($0)'?" } ?? "")
        }
        return shown + " (see 'facecam \(command) --help')"
    }

    /// The options `command` takes, as typed (`--output`, `-o`), from ArgumentParser's description of it.
    static func optionNames(of command: String) -> Set<String>? {
        do {
            _ = try parseAsRoot([command, "--experimental-dump-help"])
            return nil
        } catch {
            struct Description: Decodable {
                struct Command: Decodable { var arguments: [Argument]? }
                struct Argument: Decodable { var names: [Name]? }
                struct Name: Decodable { var kind: String; var name: String }
                var command: Command
            }
            guard let description = try? JSONDecoder().decode(Description.self, from: Data(fullMessage(for: error).utf8)) else { return nil }
            let names = (description.command.arguments ?? []).flatMap { $0.names ?? [] }
                .map { ($0.kind == "short" ? "-" : "--") + $0.name }
            return Set(names + ["--help", "-h"])
        }
    }

    /// The name in `names` within two edits of `word` (the fewest), if one is.
    static func nearest(to word: String, among names: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let scored = names.map { ($0, distance(Array(word.lowercased()), Array($0))) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
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
