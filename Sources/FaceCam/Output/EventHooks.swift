#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Synchronization

/// Runs a shell command for each track event (`--on-event`), in the background: the event's JSON
/// Lines record on its standard input, `FACECAM_EVENT`, `FACECAM_ID`, `FACECAM_SOURCE`,
/// `FACECAM_FRAME`, `FACECAM_TIME` (and for a zone's events `FACECAM_ZONE`, with --recognize `FACECAM_IDENTITY`) in its environment. At most `concurrency` run at once;
/// an event that comes while that many run waits in a queue of `queueLimit`, and beyond it is
/// dropped and counted. Commands start in the order of their events. A run still going after `timeout` seconds is killed. Failures are reported
/// one line each and counted; none ever holds detection up. When the input ends, queued runs
/// start for one `timeout` more, and those not started by then are dropped: the wait is two
/// `timeout`s at most. When the run is stopped (a signal, live's --duration or --exit-on), queued runs
/// are dropped at once and running ones killed after `stopGrace`. A command starts with none of facecam's descriptors but its standard
/// input, output and error, no signal blocked, and every signal's default action.
public final class EventHooks: Sendable {
    public struct Summary: Sendable, Equatable {
        public var runs = 0
        public var failed = 0
        public var dropped = 0
    }

    public let command: String
    public let concurrency: Int
    public let timeout: Double
    public static let queueLimit = 100
    /// Seconds a command still running when the run is stopped may go on before it is killed.
    public static let stopGrace = 2.0

    private let clock: any MonotonicClock
    private let report: @Sendable (String) -> Void
    private let starts = DispatchQueue(label: "facecam.on-event.starts")
    private let runs = DispatchQueue(label: "facecam.on-event", attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let pending = DispatchGroup()
    private struct State {
        var summary = Summary()
        /// Runs started or queued and not yet ended.
        var waiting = 0
        /// When `finish` stops starting queued runs (monotonic seconds); nil until it is called.
        var closing: Double?
        /// When the run was stopped, if it was: running commands are killed `stopGrace` after.
        var stopped: Double?
        /// The commands running, by process id.
        var running: [pid_t: RunningCommand] = [:]
    }

    /// A command's process, killed at most once, and never once it has exited (its id may then be another's).
    private final class RunningCommand: Sendable {
        let pid: pid_t
        private let state = Mutex<(exited: Bool, killedFor: String?)>((false, nil))

        init(pid: pid_t) { self.pid = pid }

        /// Kills its process group, `reason` saying why, unless it exited or was killed already.
        func terminate(for reason: String) {
            state.withLock { state in
                guard !state.exited, state.killedFor == nil else { return }
                state.killedFor = reason
                kill(-pid, SIGKILL)
            }
        }

        /// Says it exited (not yet reaped); why it was killed, if it was.
        func exited() -> String? {
            state.withLock { state in
                state.exited = true
                return state.killedFor
            }
        }
    }

    private let state = Mutex(State())

    public init(
        command: String, concurrency: Int, timeout: Double, clock: any MonotonicClock = SystemClock(),
        report: @escaping @Sendable (String) -> Void
    ) {
        precondition(concurrency > 0 && timeout > 0, "hooks run one at a time at least, for some time")
        self.clock = clock
        self.command = command
        self.concurrency = concurrency
        self.timeout = timeout
        self.report = report
        slots = DispatchSemaphore(value: concurrency)
    }

    /// Starts the command for `event`, whose record is `record` (one JSON line), or drops it when
    /// the queue is full.
    public func run(_ event: TrackEvent, record: String) {
        let queued = state.withLock { state in
            guard state.waiting < concurrency + Self.queueLimit else {
                state.summary.dropped += 1
                return false
            }
            state.waiting += 1
            return true
        }
        guard queued else { return }
        pending.enter()
        // Slots are taken on a serial queue, so that commands start in the order of their events (an id's enter before
        // its leave): a semaphore wakes the runs waiting on it in no set order.
        starts.async { [self] in
            slots.wait()
            if clock.now >= closingTime {
                slots.signal()
                state.withLock { state in
                    state.waiting -= 1
                    state.summary.dropped += 1
                }
                return pending.leave()
            }
            runs.async { [self] in
                let failure = execute(event, record: record)
                slots.signal()
                state.withLock { state in
                    state.waiting -= 1
                    state.summary.runs += 1
                    if failure != nil { state.summary.failed += 1 }
                }
                if let failure { report("\(failure) for id \(event.id)'s \(event.kind.rawValue) at \(event.source) frame \(event.frame)") }
                pending.leave()
            }
        }
    }

    /// Waits for the runs started and those queued that start within one `timeout`, and tells how they went. A run
    /// that was `stopped` starts none of those queued, and gives those running `stopGrace`.
    public func finish(stopped: Bool = false) -> Summary {
        let now = clock.now
        let running = state.withLock { state in
            state.closing = stopped ? now : now + timeout
            if stopped { state.stopped = now }
            return stopped ? Array(state.running.values) : []
        }
        for command in running { killAfterStopGrace(command, stoppedAt: now) }
        pending.wait()
        return state.withLock { $0.summary }
    }

    /// A command still running when the run stopped is killed `stopGrace` after.
    private func killAfterStopGrace(_ command: RunningCommand, stoppedAt: Double) {
        clock.schedule(at: stoppedAt + Self.stopGrace) {
            command.terminate(for: "the command was still running \(decimal(Self.stopGrace)) s after the run stopped, and was killed")
        }
    }

    /// When queued runs stop starting: `finish`'s time and one timeout (at once when stopped); infinity before it.
    var closingTime: Double { state.withLock { $0.closing ?? .infinity } }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc module does not import.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }
    }()

    /// Runs the command once, in a process group of its own (so that a timeout kills what it
    /// started too), its standard output sent to facecam's standard error (facecam's own output
    /// stays results only); why it failed, or nil.
    private func execute(_ event: TrackEvent, record: String) -> String? {
        // The record comes from an unlinked file rather than a pipe: a program that never reads it, or
        // exits first, can neither block facecam nor end it with SIGPIPE.
        var name = Array("\(NSTemporaryDirectory())/facecam-event-XXXXXX".utf8CString)
        let input = mkstemp(&name)
        guard input >= 0 else { return "cannot make its input file (mkstemp: \(String(cString: strerror(errno))))" }
        defer { close(input) }
        unlink(name)
        do {
            try writeAll(Array(record.utf8), to: input, path: "the event's input file")
        } catch {
            return "cannot write its input (\(error.call): \(error.reason))"
        }
        lseek(input, 0, SEEK_SET)

        var environment = ProcessInfo.processInfo.environment
        environment["FACECAM_EVENT"] = event.kind.rawValue
        environment["FACECAM_ID"] = String(event.id)
        environment["FACECAM_SOURCE"] = event.source
        environment["FACECAM_FRAME"] = String(event.frame)
        environment["FACECAM_TIME"] = decimal(event.time)
        environment["FACECAM_ZONE"] = event.zone
        // With --recognize: the name, empty for someone unknown.
        environment["FACECAM_IDENTITY"] = event.identity.map { $0.name ?? "" }
        // The broker's password (live --mqtt) and the people panel's token are facecam's alone.
        environment["FACECAM_MQTT_PASSWORD"] = nil
        environment["FACECAM_SERVE_TOKEN"] = nil
        let words: [String] = ["/bin/sh", "-c", command]
        let arguments = words.map { (word: String) -> UnsafeMutablePointer<CChar>? in strdup(word) } + [nil]
        let variables = environment.map { (key: String, value: String) -> UnsafeMutablePointer<CChar>? in strdup("\(key)=\(value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }

        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, input, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        // A background process the command leaves must not hold facecam's port, broker socket or files open.
        guard let closeFrom = Self.addCloseFrom, closeFrom(&actions, STDERR_FILENO + 1) == 0 else {
            return "cannot start /bin/sh: the C library cannot close facecam's descriptors for it (posix_spawn_file_actions_addclosefrom_np)"
        }
        // facecam ignores SIGINT and SIGTERM (it stops between frames) and its threads block signals:
        // the command gets neither, so that SIGTERM ends it and its shell can wait for its children.
        var unblocked = sigset_t(), defaults = sigset_t()
        sigemptyset(&unblocked)
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        // Read before the command starts, so that whatever the command does (a test that moves the clock once it sees the
        // command run) comes after its timeout began.
        let deadline = clock.now + timeout
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables)
        guard spawned == 0 else { return "cannot start /bin/sh (posix_spawn: \(String(cString: strerror(spawned))))" }

        let command = RunningCommand(pid: pid)
        let timeoutKill = clock.schedule(at: deadline) { [timeout] in
            command.terminate(for: "the command ran longer than \(decimal(timeout)) s and was killed")
        }
        let stoppedAt = state.withLock { state in
            state.running[pid] = command
            return state.stopped
        }
        if let stoppedAt { killAfterStopGrace(command, stoppedAt: stoppedAt) }
        // Waits without reaping, so that a kill that comes meanwhile still reaches this command's process group.
        var exit = siginfo_t()
        _ = try? blockingSyscall("waitid") { waitid(P_PID, id_t(pid), &exit, WEXITED | WNOWAIT) }
        let killedFor = command.exited()
        timeoutKill.cancel()
        state.withLock { _ = $0.running.removeValue(forKey: pid) }
        var status: Int32 = 0
        _ = try? blockingSyscall("waitpid") { waitpid(pid, &status, 0) }
        if let killedFor { return killedFor }
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let signal = status & 0x7f
        if signal != 0 { return "the command was killed by signal \(signal)" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "the command exited with status \(code)"
    }
}

extension EventHooks.Summary: CustomStringConvertible {
    public var description: String { described() }

    /// "4 runs, 1 failed", and the events dropped; `limit` names what bounds the commands running at
    /// once (the command line's option).
    public func described(limit: String = "the commands allowed at once") -> String {
        "\(runs) run\(runs == 1 ? "" : "s"), \(failed) failed"
            + (dropped > 0 ? ", \(dropped) dropped (more events than \(limit) could run in time)" : "")
    }
}
