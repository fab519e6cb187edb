import ArgumentParser
import FaceCam

#if canImport(Glibc)
import Glibc
#endif

@main
struct FaceCamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facecam",
        abstract: "Find faces in images and map their boxes into a preview's coordinates.",
        discussion: """
            Exit statuses: 0 success; 1 an input or output failed (the others were still \
            processed); 2 some frame had fewer faces than --min-faces; 64 usage error.
            """,
        subcommands: [Detect.self, Map.self])
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
