import ArgumentParser
import FaceCam
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The binary's entry point (Sources/FaceCamMain/main.swift): runs the command line this process was given.
public func facecamMain() {
    FaceCamCommand.main()
}

struct FaceCamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facecam",
        abstract: "Find faces in images, video files and live cameras, and map their boxes into a preview's coordinates "
            + "(facecam \(facecamVersion)).",
        discussion: """
            Exit statuses: 0 success; 1 an input or output failed (the others were still \
            processed); 2 some frame had fewer faces than --min-faces; 3-9 camera failures and \
            --exit-on (see facecam live --help); 64 usage error; 130, 143, 129 stopped by SIGINT, SIGTERM, SIGHUP.
            """ + guidePointer("README.md and docs/", manual: "facecam"),
        version: facecamVersion,
        subcommands: [Detect.self, Video.self, Live.self, Redact.self, Eval.self, Enrol.self, People.self, Devices.self, Map.self])

    /// ArgumentParser's own main, but a usage error is one line on standard error, `--version` names the inference
    /// engine the DNN detectors would run on, and the process ends without exit()'s C++ destructors.
    static func main() {
        OpenCVThreads.runBLASOnCaller()
        let error = outcome(of: Array(CommandLine.arguments.dropFirst()))
        let status = error.map(exitCode(for:)) ?? .success
        fflush(nil)
        // What ArgumentParser's exit(withError:) prints: a help text on standard output, any other message on standard error.
        if let error, case let message = fullMessage(for: error), !message.isEmpty {
            let standardOutput = status == .success
            try? writeAll(Array((message + "\n").utf8), to: standardOutput ? STDOUT_FILENO : STDERR_FILENO,
                          path: standardOutput ? "standard output" : "standard error")
        }
        // Not exit(): the destructors it runs (OpenVINO's, oneTBB's) tear down what their own threads, still alive, wait
        // on; a live run once died of it after its summary. Every file is closed by now, and facecam's output is unbuffered.
        _exit(status.rawValue)
    }

    /// Whether the command running owns the process, as the binary's does: its signals (`StopRequest`) and its
    /// process-wide settings (OpenCV's thread pool). False for a command run inside another program (the tests), which
    /// keeps both: commands run side by side there.
    @TaskLocal static var ownsProcess = true

    /// Parses `arguments` and runs the command they name; what parsing or the command refuses is thrown.
    static func parsedAndRun(_ arguments: [String], ownsProcess: Bool) throws {
        var command = try parseAsRoot(arguments)
        try $ownsProcess.withValue(ownsProcess) { try command.run() }
    }

    /// Parses and runs `arguments` as the binary does, saying what it says, and returns what ends the run: nil for
    /// success, else the error `main` ends with (its status, and the message ArgumentParser still prints for
    /// errors facecam does not report itself). Inside another program (the tests), `ownsProcess` is false.
    static func outcome(of arguments: [String], ownsProcess: Bool = true) -> Error? {
        if arguments.elementsEqual(["--version"]) {
            do {
                try writeResult(facecamVersion + "\n" + engineReport() + "\n")
            } catch {
                return error
            }
            return nil
        }
        if let line = overlongOption(in: arguments) {
            report(line)
            return Status.usage
        }
        do {
            try parsedAndRun(arguments, ownsProcess: ownsProcess)
            return nil
        } catch let refusal as Refusal {
            report(refusal.line)
            return refusal.status
        } catch {
            let status = exitCode(for: error)
            // Help and a subcommand's version: written and checked as results are, so that a full disk is said.
            if status == .success, !(error is ExitCode) {
                do {
                    try writeResult(fullMessage(for: error) + "\n")
                } catch {
                    return error
                }
                return status
            }
            // Statuses whose message was already reported go through unchanged.
            guard status == Status.usage, !(error is ExitCode) else { return error }
            report(usageMessage(for: error, arguments: arguments))
            return Status.usage
        }
    }

    /// The line `main` reports for a usage error in `arguments` (without "facecam: "), or nil when they
    /// parse and pass every check made before a command runs: what the in-process tests call.
    static func usageError(in arguments: [String]) -> String? {
        if let line = overlongOption(in: arguments) { return line }
        do {
            _ = try parseAsRoot(arguments)
            return nil
        } catch {
            guard exitCode(for: error) == Status.usage, !(error is ExitCode) else { return nil }
            return usageMessage(for: error, arguments: arguments)
        }
    }

    /// A usage error as one line that points to the help of the command it is about: an unknown
    /// command gets the nearest one's name, and an unknown option is named before a missing argument
    /// or a failed check (ArgumentParser reports those first). Names from the command line are shown escaped.
    static func usageMessage(for error: Error, arguments: [String]) -> String {
        let names = configuration.subcommands.map { $0._commandName }
        func shown(_ text: String) -> String { Self.shown(text) }
        let first = arguments.first { !$0.hasPrefix("-") }
        guard let command = first, names.contains(command) else {
            if let later = arguments.first(where: names.contains) {
                return "options go after the command: facecam \(later) [options] (see 'facecam \(later) --help')"
            }
            if let first, let nearest = nearest(to: first, among: names) {
                return "unknown command '\(shown(first))': did you mean '\(nearest)'? (see 'facecam --help')"
            }
            if let first {
                return "unknown command '\(shown(first))': the commands are \(names.joined(separator: ", ")) (see 'facecam --help')"
            }
            return oneLine(quoting(arguments, in: message(for: error))) + " (see 'facecam --help')"
        }
        var said = oneLine(quoting(arguments, in: message(for: error)))
        // A subcommand's options (people rename --gallery) are its own, not its parent's.
        let path = commandPath(command, in: arguments)
        if path == command, let word = arguments.drop(while: { $0 != command }).dropFirst().first,
           let subcommands = configuration.subcommands.first(where: { $0._commandName == command })?.configuration.subcommands,
           !subcommands.isEmpty {
            let names = subcommands.map { $0._commandName }
            return "unknown subcommand '\(shown(word))' of \(command): "
                + (nearest(to: word, among: names).map { "did you mean '\($0)'?" } ?? "the subcommands are \(names.joined(separator: ", "))")
                + " (see 'facecam \(command) --help')"
        }
        // ArgumentParser checks arguments and validate() before it finds options it does not know; its own line for one
        // would show a line break in it raw.
        if let options = optionNames(of: path),
           let unknown = unknownOption(in: arguments, options: options) {
            // A typo of an option's name, else a value typed as an option (redact --blur for --mode blur), else an option of
            // other commands (live --cluster).
            let hint = unknown.hasPrefix("--")
                ? Self.renamedOptions[path]?[unknown] ?? nearest(to: unknown, among: options.names.filter { $0.hasPrefix("--") }.sorted())
                    ?? options.optionTaking[String(unknown.dropFirst(2))].map { $0 + " " + unknown.dropFirst(2) }
                : nil
            let elsewhere = hint == nil && unknown.hasPrefix("--") ? commands(taking: unknown) : []
            said = "Unknown option '\(shown(unknown))'" + (hint.map { ". Did you mean '\($0)'?" } ?? "")
                + (elsewhere.isEmpty ? "" : ": it is an option of \(listed(elsewhere, "and"))")
        }
        return said + " (see 'facecam \(path) --help')"
    }

    /// Options renamed, by command: a script's old name gets the new one as its hint (CHANGELOG.md says when).
    static let renamedOptions = ["redact": ["--every": "--search-every"]]

    /// The usage error for an option name longer than any (100 characters; a pasted blob), said before ArgumentParser
    /// parses, which compares such a name with each of its own for a while (3 to 5 s at 100,000 characters).
    static func overlongOption(in arguments: [String]) -> String? {
        let options = arguments.prefix { $0 != "--" }
        guard let long = options.first(where: { $0.hasPrefix("-") && $0.prefix { $0 != "=" }.count > 100 }) else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        let command = options.first { !$0.hasPrefix("-") }.flatMap { names.contains($0) ? $0 + " " : nil } ?? ""
        return "Unknown option '\(shown(String(long.prefix { $0 != "=" })))' (see 'facecam \(command)--help')"
    }

    /// An argument as a message shows it: control characters escaped as a path's are, and cut to its first 60
    /// characters when longer than 80 (a line of 131,000 characters helps no one).
    static func shown(_ argument: String) -> String {
        let text = FilePath(argument).description
        return text.count > 80 ? text.prefix(60) + "... (\(argument.count) characters)" : text
    }

    /// ArgumentParser's `message` with each argument it quotes that has a control character or is long shown as `shown`
    /// shows it, before the message is split into lines.
    static func quoting(_ arguments: [String], in message: String) -> String {
        var message = message
        for argument in Set(arguments) where argument.count > 80 || argument.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            message = message.replacingOccurrences(of: argument, with: shown(argument))
        }
        return message
    }

    /// `command` with the subcommand the arguments name after it ("people rename"), or its default one
    /// when they name none: the command whose options and help a usage error is about.
    /// A word there that names no subcommand leaves the command itself, whose help lists them.
    static func commandPath(_ command: String, in arguments: [String]) -> String {
        guard let type = configuration.subcommands.first(where: { $0._commandName == command }),
              !type.configuration.subcommands.isEmpty else { return command }
        // As ArgumentParser routes: only the argument right after the command can name a subcommand.
        let next = arguments.drop { $0 != command }.dropFirst().first
        if let next, !next.hasPrefix("-") {
            return type.configuration.subcommands.first { $0._commandName == next }.map { command + " " + $0._commandName } ?? command
        }
        return type.configuration.defaultSubcommand.map { command + " " + $0._commandName } ?? command
    }

    /// The first argument that names no option of the command: a word after `--` is an input, and an
    /// option's value (the next argument, for an option that takes one) may start with a minus.
    static func unknownOption(in arguments: [String], options: CommandOptions) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return nil }
            guard argument.count > 1, argument.hasPrefix("-") else { continue }
            let name = String(argument.prefix { $0 != "=" })
            guard options.names.contains(name) else { return name }
            if options.takingValues.contains(name), !argument.contains("=") { index += 1 }
        }
        return nil
    }

    /// The options of a command, as typed (`--output`, `-o`), from ArgumentParser's description of it.
    struct CommandOptions {
        var names: Set<String>
        /// Those that take a value.
        var takingValues: Set<String>
        /// The option (its long name) each value of a closed list is a value of, where only one option takes it.
        var optionTaking: [String: String] = [:]
    }

    /// The commands (not their subcommands) that take `option`, in the order `facecam --help` lists them.
    static func commands(taking option: String) -> [String] {
        configuration.subcommands.map { $0._commandName }.filter { optionNames(of: $0)?.names.contains(option) == true }
    }

    /// The options `command` takes.
    static func optionNames(of command: String) -> CommandOptions? {
        if let known = optionNamesByCommand.withLock({ $0[command] }) { return known }
        let names = describedOptionNames(of: command)
        if let names { optionNamesByCommand.withLock { $0[command] = names } }
        return names
    }

    /// Each command's option names, described once: ArgumentParser takes a good part of a second to
    /// describe a command, and the in-process tests ask for hundreds of usage errors.
    private static let optionNamesByCommand = Mutex<[String: CommandOptions]>([:])

    private static func describedOptionNames(of command: String) -> CommandOptions? {
        do {
            _ = try parseAsRoot(command.split(separator: " ").map(String.init) + ["--experimental-dump-help"])
            return nil
        } catch {
            struct Description: Decodable {
                struct Command: Decodable { var arguments: [Argument]? }
                struct Argument: Decodable { var kind: String; var names: [Name]?; var allValues: [String]? }
                struct Name: Decodable { var kind: String; var name: String }
                var command: Command
            }
            guard let description = try? JSONDecoder().decode(Description.self, from: Data(fullMessage(for: error).utf8)) else { return nil }
            func typed(_ argument: Description.Argument) -> [String] {
                (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }
            }
            let arguments = description.command.arguments ?? []
            var options = CommandOptions(
                names: Set(arguments.flatMap(typed) + ["--help", "-h"]), takingValues: Set(arguments.filter { $0.kind == "option" }.flatMap(typed)))
            let valued = arguments.filter { $0.kind == "option" }.flatMap { argument in
                (argument.allValues ?? []).compactMap { value in typed(argument).first { $0.hasPrefix("--") }.map { (value, $0) } }
            }
            let shared = Dictionary(grouping: valued, by: \.0).filter { $0.value.count > 1 }.keys
            options.optionTaking = Dictionary(valued.filter { !shared.contains($0.0) }, uniquingKeysWith: { first, _ in first })
            return options
        }
    }

    /// The name in `names` fewest edits from `word`, if it is close enough to be a typo of it.
    static func nearest(to word: String, among names: [String]) -> String? {
        // Edits: a letter inserted, removed, changed, or two swapped (the optimal string alignment distance).
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var d = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
            for i in stride(from: 1, through: a.count, by: 1) {
                for j in stride(from: 1, through: b.count, by: 1) {
                    d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
                }
            }
            return d[a.count][b.count]
        }
        // Within a quarter of the name's letters (two at most), so that a hint is a likely typo.
        let most = min(2, max(1, word.drop { $0 == "-" }.count / 4))
        // A name longer or shorter than the word by more than that is no typo of it: not aligned at all.
        let scored = names.filter { abs($0.count - word.count) <= most }.map { ($0, distance(Array(word.lowercased()), Array($0))) }.filter { $0.1 <= most }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// The engine line of `--version`: OpenVINO's version and where it was loaded from, or why it was not.
    static func engineReport() -> String {
        do {
            let openVINO = try OpenVINORuntime.load()
            return "inference: \(InferenceEngine.openvino.name) \(openVINO.version) from \(openVINO.directory), OpenCV \(InferenceEngine.openCVVersion)"
        } catch {
            return "inference: OpenCV \(InferenceEngine.openCVVersion) (\(error.advised))"
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

/// Prints one line on standard error, prefixed with the program's name; whatever in it could move the cursor, break
/// the line or turn the text around (a name or path from the command line, a file or the environment) is escaped.
/// A line of over 2,000 characters (a path of 100,000) keeps its start and its end, saying how much was left out.
func report(_ message: String) {
    var line = reported(message) + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// The line `report` prints for `message`, without its line break.
func reported(_ message: String) -> String {
    let text = shownOnOneLine(message)
    let shown = text.count <= 2000 ? text : text.prefix(1200) + " [... \(text.count - 1600) characters ...] " + text.suffix(400)
    return "facecam: \(shown)"
}

/// Warns that a folder given held pictures of the kind the command does not read (videos given to detect, images to
/// video), naming the command that reads them.
func warn(_ passed: StillImageInputs.PassedOver, readingVideos: Bool) {
    let count = readingVideos ? passed.images : passed.videos
    guard count > 0 else { return }
    let (kind, reader, other) = readingVideos ? ("image", "video reads videos", "detect reads images") : ("video", "detect reads images", "video reads videos")
    report("warning: \(passed.path): \(count) \(kind)\(count == 1 ? "" : "s") passed over: \(reader) (facecam \(other), facecam redact both)")
}

/// Warns that a directory given gave no file, naming the option that enters subdirectories where the command has one.
func warn(_ empty: StillImageInputs.EmptyDirectory, recursion: String? = nil) {
    let hint = recursion.map { empty.subdirectories > 0 ? " (\($0) enters subdirectories)" : "" } ?? ""
    report("warning: \(empty)\(hint)")
}

/// `paths` without the named files that cannot be looked at (missing, or behind a folder that cannot be searched), each
/// reported here, before any model loads, so that a mistyped path is said at once; streams (a URL, standard input) are
/// kept. Unless `foldersTaken`, a folder is reported and left out too (enrol reads files alone). The run goes on with the
/// others, and counts these with its failures (`Session.countReported`).
func withoutMissing(_ paths: [FilePath], foldersTaken: Bool = true) -> (paths: [FilePath], missing: Int) {
    var kept: [FilePath] = []
    var missing = 0
    for path in paths {
        if case .file = VideoInput(path) {
            let kind: FileKind
            do {
                kind = try fileStatus(path).kind
            } catch {
                report(FaceCamError.unreadable(error))
                missing += 1
                continue
            }
            if kind == .directory, !foldersTaken {
                report(FaceCamError.directory(path: path.description))
                missing += 1
                continue
            }
        }
        kept.append(path)
    }
    return (kept, missing)
}

/// Writes `text` whole to standard output, unbuffered, so that a line is out even if the run is killed after it; a write
/// that fails (a full disk, /dev/full) is said, and is status 1: a result is never lost silently.
func writeResult(_ text: String) throws {
    do {
        try writeAll(Array(text.utf8), to: STDOUT_FILENO, path: "standard output")
    } catch {
        report(FaceCamError.output(error))
        throw Status.failure
    }
}
