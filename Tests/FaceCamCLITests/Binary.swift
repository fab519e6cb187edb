import FaceCam
import Foundation
import Synchronization
import Testing

/// The repository root, found from this file's place.
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ relative: String) -> String {
    repository.appendingPathComponent("Fixtures").appendingPathComponent(relative).path
}

/// What a run of a program printed and how it ended.
struct Run: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    /// Standard output as bytes, for programs that print binary (curl fetching a JPEG).
    var stdoutBytes: [UInt8] = []

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// The stdout lines parsed as JSON objects.
    func records() throws -> [[String: Any]] {
        try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }
}

/// Runs `executable` with `arguments`, standard output and error going to files (no pipe can fill up)
/// and standard input read from `input` (nothing without it), in `environment` (this one's without it). The reference
/// scripts run in an interpreter that stays up (`ReferenceInterpreters`), as they would in a process of their own.
func run(_ executable: URL, _ arguments: [String], input: URL? = nil, environment: [String: String]? = nil) throws -> Run {
    if ReferenceInterpreters.serves(executable, arguments, input: input, environment: environment) {
        return try ReferenceInterpreters.shared.run(arguments)
    }
    return try BackgroundProcess(executable, arguments, input: input, environment: environment).wait()
}

/// Runs `executable` with `arguments` and sends it `signal` as soon as `ready` holds (checked every
/// 10 ms, for up to 60 s): timed by the program's own progress rather than the clock, the signal lands
/// mid-run however busy the machine is. `signalled` is false when the program ended or the time ran out first.
func interrupt(
    _ executable: URL, _ arguments: [String], signal: Int32 = SIGINT, when ready: (BackgroundProcess) -> Bool
) throws -> (run: Run, signalled: Bool) {
    let started = try BackgroundProcess(executable, arguments)
    let deadline = Date(timeIntervalSinceNow: 60)
    while started.isRunning, !ready(started), Date() < deadline {
        Thread.sleep(forTimeInterval: 0.01)
    }
    let signalled = started.isRunning && ready(started)
    if signalled { started.signal(signal) }
    return (try started.wait(), signalled)
}

/// A program running while a test talks to it: standard output and error go to files, read when it ends.
final class BackgroundProcess {
    private let process = Process()
    private let scratch: URL
    private let out: URL
    private let err: URL
    private let started = Date()
    private let label: String

    init(_ executable: URL, _ arguments: [String], input: URL? = nil, environment: [String: String]? = nil) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        out = scratch.appendingPathComponent("stdout")
        err = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.executableURL = executable
        label = "\(Test.current?.name ?? "?") | \(executable.lastPathComponent) \(arguments.joined(separator: " "))"
        process.arguments = arguments
        process.currentDirectoryURL = repository
        process.environment = Self.environment(for: executable, environment ?? ProcessInfo.processInfo.environment)
        process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
    }

    /// A reference script's NumPy and OpenCV load OpenBLAS, whose idle threads spin for about 0.1 s of CPU at every
    /// start (a fifth of what `import cv2` costs); what the references hand BLAS is small enough for one thread.
    /// Other programs, facecam first, run in the environment they are given.
    static func environment(for executable: URL, _ environment: [String: String]) -> [String: String] {
        var environment = environment
        if executable.lastPathComponent.hasPrefix("python"), environment["OPENBLAS_NUM_THREADS"] == nil {
            environment["OPENBLAS_NUM_THREADS"] = "1"
        }
        return environment
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    var isRunning: Bool { process.isRunning }

    /// Standard error so far.
    var standardError: String { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }

    /// Standard output so far.
    var standardOutput: String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }

    var processIdentifier: Int32 { process.processIdentifier }

    /// How many whole lines the program has written to standard output so far.
    var outputLines: Int { ((try? Data(contentsOf: out)) ?? Data()).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }

    /// The first line of standard error containing `text`, waiting up to `timeout` seconds for it;
    /// nil when the program ended or the time ran out first.
    func waitForErrorLine(containing text: String, timeout: TimeInterval = 30) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let line = standardError.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            if !process.isRunning { return nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    /// Waits until `condition` holds while the program runs, up to `timeout` seconds; false when it ended or the time
    /// ran out first.
    func wait(timeout: TimeInterval = 60, until condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the program to end.
    func wait() throws -> Run {
        process.waitUntilExit()
        // Appended with O_APPEND in one write, so that tests running side by side never write over each other's lines.
        if let path = ProcessInfo.processInfo.environment["FACECAM_TEST_TIMES"] {
            let file = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            if file >= 0 {
                let line = Array(String(format: "%.2f | %@\n", Date().timeIntervalSince(started), label).utf8)
                _ = line.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
                close(file)
            }
        }
        let bytes = try Data(contentsOf: out)
        return Run(
            status: process.terminationStatus,
            // Binary output (checked through stdoutBytes) is no text to decode.
            stdout: String(data: bytes, encoding: .utf8) ?? "",
            stderr: try String(contentsOf: err, encoding: .utf8), stdoutBytes: Array(bytes))
    }
}

/// The facecam the end-to-end tests run: FACECAM_BINARY's when set (make test gives the release binary,
/// the one that is installed), else the facecam built beside this test bundle.
let facecamBinary: URL = {
    if let given = ProcessInfo.processInfo.environment["FACECAM_BINARY"], !given.isEmpty {
        return URL(fileURLWithPath: given, relativeTo: repository).standardizedFileURL
    }
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = bundle.deletingLastPathComponent()
    // The bundle is either the test executable itself or a directory holding it.
    while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("facecam").path),
          directory.path != "/" {
        directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("facecam")
}()

func facecam(_ arguments: String...) throws -> Run {
    try run(facecamBinary, arguments)
}

/// How many frames of `path`'s first video stream ffprobe decodes; the test fails, saying why, when it cannot tell.
func probedFrameCount(_ path: String) throws -> Int {
    let counted = try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
        "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
    // MPEG-TS lists the stream again in its program; some containers add a trailing comma.
    return try #require(
        counted.lines.first.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) },
        "ffprobe on \(path): \(counted.stdout) \(counted.stderr)")
}

/// The partial files facecam has open for `destination` (`DESTINATION.partial-XXXXXXXX`), by name.
func partialFiles(of destination: String) -> [String] {
    let url = URL(fileURLWithPath: destination)
    let prefix = url.lastPathComponent + ".partial-"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
    return names.filter { $0.hasPrefix(prefix) && $0.count == prefix.count + 8 }.sorted()
}

/// The folder for what the tests make once a run and share (synthetic clips, enrolled galleries): made at its first use,
/// and removed with all it holds when the test process exits.
let runFolder: URL = {
    try? FileManager.default.createDirectory(at: runFolderPath(), withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: runFolderPath()) }
    return runFolderPath()
}()

/// `runFolder`'s place, this process's: a function, which the exit handler can call without capturing anything.
private func runFolderPath() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("facecam-tests-\(getpid())")
}

/// Values made once a test run for each key, by `make`, for the tests that all need the same: a test asking for one
/// while another makes it waits for it. A failure is kept and thrown to each: `make` throws a plain error (`SetupFailure`),
/// not Swift Testing's `#require`, whose error a test that throws it is not failed for, the issue having been recorded
/// once, in the test that first asked.
final class OnceARun<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let make: @Sendable (Key) throws -> Value
    /// One lock for all keys: the values are few.
    private let made = Mutex<[Key: Result<Value, any Error>]>([:])

    init(_ make: @escaping @Sendable (Key) throws -> Value) {
        self.make = make
    }

    func callAsFunction(_ key: Key) throws -> Value {
        try made.withLock { values in
            if let value = values[key] { return value }
            let value = Result { try make(key) }
            values[key] = value
            return value
        }.get()
    }
}

/// What a test needed could not be made: why, in words.
struct SetupFailure: Error, CustomStringConvertible {
    var description: String
}

/// A fresh directory for one test's files.
func temporaryDirectory(_ name: String) throws -> URL {
    try FileManager.default.temporaryDirectory.madeFolder("facecam-\(name)-\(UUID().uuidString)")
}

extension URL {
    /// The folder `path` below this one, made with the folders above it.
    @discardableResult
    func madeFolder(_ path: String) throws -> URL {
        let folder = appendingPathComponent(path)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// The detector options for tests of what is read (frames, times, errors), not of what is found: Haar searching only for
/// faces 200 pixels tall or more, the cheapest search (a 90-frame 480x360 clip in 0.4 s of CPU, where YuNet took 2.6 s and
/// Haar from its default size 9.8).
let readingOnly = ["--detector", "haar", "--min-size", "200"]

/// Makes a test's input with Debian's ffmpeg (`-v error`, then `arguments`); the test fails, saying why, when it cannot.
func ffmpeg(_ arguments: [String]) throws {
    let made = try run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error"] + arguments)
    try #require(made.status == 0, "ffmpeg \(arguments.joined(separator: " ")): \(made.stderr)")
}

/// Fixtures/video/pan-zoom.avi made again by ffmpeg as `name` in `directory`, with `arguments` between that input and the
/// output (whose extension picks the container); its path.
func remadePanZoom(_ name: String, in directory: URL, _ arguments: [String]) throws -> String {
    let path = directory.appendingPathComponent(name).path
    try ffmpeg(["-i", fixture("video/pan-zoom.avi")] + arguments + [path])
    return path
}

/// The network detectors' ids, in `--detector`'s order: the tests that run or name every model take a backend added to
/// `FaceModelKind` with no change.
let modelDetectors = FaceModelKind.allCases.map(\.id)

/// The network detectors as the messages name them: "yunet and centerface", "a, b and c".
let modelDetectorNames = modelDetectors.dropLast().joined(separator: ", ") + " and " + modelDetectors.last!
