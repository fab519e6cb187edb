import ArgumentParser

/// What building from options that parsed and passed their checks refused, before any work: a list or picture that
/// cannot be read, an output that would overwrite an input. `FaceCamCommand.main` says the line and exits with the
/// status; the builders throw it rather than print it, so that the in-process tests read the line.
struct Refusal: Error, Equatable {
    let line: String
    let status: ExitCode

    /// A usage error (64): what was given cannot be used.
    static func usage(_ line: String) -> Refusal { Refusal(line: line, status: Status.usage) }

    /// A failure (1): what was given is right, but the machine could not do it.
    static func failure(_ line: String) -> Refusal { Refusal(line: line, status: Status.failure) }
}
