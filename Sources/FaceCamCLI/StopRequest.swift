import ArgumentParser
import Dispatch
import FaceCam
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT or SIGTERM; the commands look at it between frames, finish
/// the frames in hand and close their outputs, so nothing processed is lost.
/// A second signal ends the process at once, for a run stuck where no frame
/// comes (a server that accepts and never answers, within a long --timeout):
/// the results already written stay, the file being written is left unfinished.
final class StopRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [unowned self] in
                let first = lock.withLock { () -> Bool in
                    defer { received = received ?? signalNumber }
                    return received == nil
                }
                guard !first else { return }
                let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
                PartialFile.discardAllOpen()
                report("stopped at once by a second \(name); the results written so far are kept, the files being written are removed")
                _exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    var requested: Bool { lock.withLock { received != nil } }

    /// The first signal that arrived.
    var signalNumber: Int32? { lock.withLock { received } }

    /// After a stop by signal: says on stderr where the command stopped, and
    /// exits as a shell reports that signal (130 for SIGINT, 143 for SIGTERM).
    /// With a results file per input (`perInput`), the input it stopped in has none: --resume redoes it.
    func exitIfStopped(at position: String, perInput: Bool = false) throws {
        guard let signalNumber else { return }
        let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
        let kept = perInput
            ? "the inputs finished before it have their results files; that input has none (--resume redoes it)"
            : "every result before it was written"
        report("stopped by \(name) \(position); \(kept)")
        throw ExitCode(128 + signalNumber)
    }
}
