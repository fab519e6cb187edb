import Foundation

/// The repository root, found from this file's place.
let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func fixture(_ relative: String) -> String {
    repository.appendingPathComponent("Fixtures").appendingPathComponent(relative).path
}

/// What a run of a program printed and how it ended.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    var errorLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// The stdout lines parsed as JSON objects.
    func records() throws -> [[String: Any]] {
        try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }
}

/// Runs `executable` with `arguments`, standard output and error going to files (no pipe can fill up)
/// and standard input read from `input` (nothing without it); with `interruptAfter`, sends `signal`
/// (SIGINT) that many seconds after the start.
func run(
    _ executable: URL, _ arguments: [String], input: URL? = nil, interruptAfter: TimeInterval? = nil,
    signal: Int32 = SIGINT
) throws -> Run {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = repository
    process.standardInput = try input.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.run()
    if let interruptAfter {
        Thread.sleep(forTimeInterval: interruptAfter)
        kill(process.processIdentifier, signal)
    }
    process.waitUntilExit()
    return Run(
        status: process.terminationStatus,
        stdout: try String(contentsOf: out, encoding: .utf8),
        stderr: try String(contentsOf: err, encoding: .utf8))
}

/// The built facecam, beside this test bundle.
let facecamBinary: URL = {
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

/// A fresh directory for one test's files.
func temporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("facecam-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
