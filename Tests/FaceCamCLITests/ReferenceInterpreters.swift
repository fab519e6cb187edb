import Foundation
import Synchronization

/// OpenCV-Python's reference scripts, run in interpreters that stay up (Tests/Reference/interpreter.py) rather than a
/// process each: `import cv2` costs about half a second of CPU, paid once per interpreter instead of once per run. An
/// interpreter answers one run at a time; a test that finds none idle starts another, so that tests side by side are
/// not queued behind each other.
final class ReferenceInterpreters: Sendable {
    static let shared = ReferenceInterpreters()
    private static let script = repository.appendingPathComponent("Tests/Reference/interpreter.py").path
    private let idle = Mutex<[Interpreter]>([])

    /// Whether `run` gives the answer a process of its own would: a script or `-c` code of the system's python3, with no
    /// standard input and this process's environment.
    static func serves(_ executable: URL, _ arguments: [String], input: URL?, environment: [String: String]?) -> Bool {
        executable.path == SharedDataTests.python && input == nil && environment == nil
            && (arguments.first == "-c" || arguments.first?.hasSuffix(".py") == true)
    }

    /// Runs python3 with `arguments` in an idle interpreter, or a new one; an interpreter that fails is not used again.
    func run(_ arguments: [String]) throws -> Run {
        let interpreter = try idle.withLock { $0.popLast() } ?? Interpreter(script: Self.script)
        let answer = try interpreter.run(arguments)
        idle.withLock { $0.append(interpreter) }
        return answer
    }
}

/// One interpreter.py: requests on its standard input, answers on its standard output, a JSON line each.
private final class Interpreter: Sendable {
    private let process = Process()
    private let requests = Pipe()
    private let answers = Pipe()

    init(script: String) throws {
        let python = URL(fileURLWithPath: SharedDataTests.python)
        process.executableURL = python
        process.arguments = [script]
        process.currentDirectoryURL = repository
        process.environment = BackgroundProcess.environment(for: python, ProcessInfo.processInfo.environment)
        process.standardInput = requests
        process.standardOutput = answers
        try process.run()
    }

    deinit {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    func run(_ arguments: [String]) throws -> Run {
        try send(try JSONSerialization.data(withJSONObject: ["argv": arguments]) + [0x0A])
        // JSON escapes the line breaks in what it carries: the first one ends the answer.
        var line = Data()
        while line.last != 0x0A {
            let chunk = answers.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw CocoaError(.fileReadUnknown, userInfo: [
                    NSLocalizedDescriptionKey: "Tests/Reference/interpreter.py ended running \(arguments) (its traceback is on standard error)"])
            }
            line += chunk
        }
        let answer = try JSONSerialization.jsonObject(with: line) as? [String: Any]
        guard let status = answer?["status"] as? Int, let stdout = answer?["stdout"] as? String, let stderr = answer?["stderr"] as? String
        else { throw CocoaError(.coderReadCorrupt, userInfo: [NSLocalizedDescriptionKey: "interpreter.py answered \(line.count) bytes of no answer"]) }
        return Run(status: Int32(clamping: status), stdout: stdout, stderr: stderr, stdoutBytes: Array(stdout.utf8))
    }

    /// Writes a request with SIGPIPE blocked on this thread alone: an interpreter that died answers EPIPE, thrown,
    /// rather than a signal that ends the tests, and the programs the tests start still inherit SIGPIPE's default.
    private func send(_ request: Data) throws {
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            // A write to a closed pipe leaves its SIGPIPE pending on this thread: taken here, before the mask is restored.
            var pending = sigset_t()
            if sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1, sigismember(&previous, SIGPIPE) == 0 {
                var now = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        try requests.fileHandleForWriting.write(contentsOf: request)
    }
}
