import ArgumentParser
import Dispatch
import FaceCam
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT, SIGTERM or SIGHUP (a closed terminal); the commands look at it between frames, finish
/// the frames in hand and close their outputs, so nothing processed is lost.
/// A second signal ends the process at once, for a run stuck where no frame
/// comes (a server that accepts and never answers, within a long --timeout):
/// the results already written stay, the file being written is left unfinished.
final class StopRequest: Sendable {
    /// The first signal that arrived.
    private let received = Mutex<Int32?>(nil)
    /// Kept for as long as the request lives (a source let go stops delivering), and never touched after init.
    nonisolated(unsafe) private let sources: [(signalNumber: Int32, source: DispatchSourceSignal)]

    /// Watches the signals when the command owns the process (`FaceCamCommand.ownsProcess`); inside another program
    /// they stay that program's, and nothing stops the run.
    init() {
        guard FaceCamCommand.ownsProcess else {
            sources = []
            return
        }
        // A SIGHUP ignored from the start (nohup) stays ignored: the run outlives its terminal, as asked.
        let hangupIgnored = Self.ignored(SIGHUP)
        sources = [SIGINT, SIGTERM, SIGHUP].filter { $0 != SIGHUP || !hangupIgnored }.map { signalNumber in
            signal(signalNumber, SIG_IGN)
            return (signalNumber, DispatchSource.makeSignalSource(signal: signalNumber, queue: .global()))
        }
        for (signalNumber, source) in sources {
            source.setEventHandler { [unowned self] in
                // Signals read before the handler ran are delivered at once, counted in the source's data: two of them are
                // a first and a second. (Looked up, not captured: a source holds its handler.)
                let count = sources.first { $0.signalNumber == signalNumber }?.source.data ?? 1
                let second = received.withLock { received in
                    defer { received = received ?? signalNumber }
                    return received != nil || count > 1
                }
                guard second else { return }
                let name = Self.name(of: signalNumber)
                PartialFile.discardAllOpen()
                report("stopped at once by a second \(name); the results written so far are kept, the files being written are removed")
                _exit(128 + signalNumber)
            }
            source.resume()
        }
    }

    var requested: Bool { signalNumber != nil }

    /// The first signal that arrived.
    var signalNumber: Int32? { received.withLock { $0 } }

    /// True when `signalNumber` is ignored, as this process was started.
    static func ignored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        sigaction(signalNumber, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    private static func name(of signalNumber: Int32) -> String {
        switch signalNumber {
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "SIGTERM"
        }
    }

    /// After a stop by signal: says on stderr where the command stopped, and
    /// exits as a shell reports that signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
    /// With a results file per input (`perInput`), the input it stopped in has none: --resume redoes it.
    func exitIfStopped(at position: String, perInput: Bool = false) throws {
        guard let signalNumber else { return }
        let name = Self.name(of: signalNumber)
        let kept = perInput
            ? "the inputs finished before it have their results files; that input has none (--resume redoes it)"
            : "every result before it was written"
        report("stopped by \(name) \(position); \(kept)")
        throw ExitCode(128 + signalNumber)
    }
}
