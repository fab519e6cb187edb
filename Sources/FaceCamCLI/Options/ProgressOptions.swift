import ArgumentParser
import FaceCam

/// How a long run shows its progress on standard error.
enum ProgressStyle: String, CaseIterable, ExpressibleByArgument {
    /// A bar redrawn on one line when standard error is a terminal; nothing otherwise.
    case auto
    /// A plain line every `ProgressBar.lineInterval` seconds and at each file's end, for logs and CI.
    case lines
    case none
}

/// `--progress` and its shorthand `--quiet`, for the commands that read videos.
struct ProgressOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "auto: a bar on a terminal (frames, frames/s, time left), nothing otherwise; lines: a line every "
            + "\(decimal(ProgressBar.lineInterval)) s and at each file's end, for logs; none.",
        valueName: "auto|lines|none"))
    var progress: ProgressStyle = .auto

    @Flag(help: "The same as --progress none.")
    var quiet = false
}
