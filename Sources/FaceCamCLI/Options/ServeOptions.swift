import ArgumentParser
import FaceCamRecognition
import FaceCamServe

/// --serve and its people panel (live).
struct ServeOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve the preview over HTTP: a page at /, /stream.mjpg, /snapshot.jpg, /events (each frame's record) and "
            + "/metrics (Prometheus); with --recognize, a people panel too (/people). HOST is \(ServeAddress.defaultHost) unless named "
            + "(0.0.0.0 for every interface); port 0 takes a free one. The address is printed on standard error.",
        valueName: "[HOST:]PORT"), transform: ServeAddress.parsed)
    var serve: ServeAddress?

    @Flag(name: .customLong("serve-people"), inversion: .prefixedNo, help: ArgumentHelp(
        "With --serve and --recognize: show the people panel, the unknown faces seen lately (a best shot of each, kept in "
            + "memory only, the last \(PeopleBoard.capacity) tracks) and when each enrolled person was last seen (default: \(onOff(Self.defaultServePeople)))."))
    var servePeopleGiven: Bool?

    /// The panel is what --recognize adds to the page.
    static let defaultServePeople = true
    var servePeople: Bool { servePeopleGiven ?? Self.defaultServePeople }

    @Flag(help: ArgumentHelp(
        "Let the people panel change the gallery: name the unknown (their descriptors enrolled), dismiss them, rename or "
            + "forget someone. Each change needs a token, read from --serve-token-file or \(ChangeToken.environmentVariable), "
            + "else made at the start into a file only you can read, whose path is printed."))
    var serveAllowChanges = false

    @Option(help: ArgumentHelp(
        "With --serve-allow-changes: read the token from this file's first line (16 to 256 printable characters; "
            + "the file readable by its owner only).", valueName: "file"))
    var serveTokenFile: String?

    func validate(recognizing: Bool) throws {
        if serve == nil, let option = [("--serve-people", servePeopleGiven == true), ("--no-serve-people", servePeopleGiven == false), ("--serve-allow-changes", serveAllowChanges),
                                       ("--serve-token-file", serveTokenFile != nil)].first(where: \.1)?.0 {
            throw ValidationError("\(option) is about the page --serve serves: add --serve [HOST:]PORT")
        }
        if serveAllowChanges, !recognizing {
            throw ValidationError("--serve-allow-changes names the faces --recognize finds unknown: add --recognize")
        }
        if serveAllowChanges, !servePeople {
            throw ValidationError("--serve-allow-changes changes the people panel, which --no-serve-people hides: leave one out")
        }
        if serveTokenFile != nil, !serveAllowChanges {
            throw ValidationError("--serve-token-file gives the token of --serve-allow-changes: add it, or leave --serve-token-file out")
        }
    }
}
