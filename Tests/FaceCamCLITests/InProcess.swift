import ArgumentParser
@testable import FaceCamCLI
import Foundation
import Testing

/// A facecam command line run in this process, as the binary runs it (`FaceCamCommand.outcome`), its results written to
/// a file of its own (`-o`) and read back. For what a run finds and writes; what a process shows (its messages and
/// standard output, statuses reported, signals) is checked on the binary. The signals stay the test process's.
struct InProcessRun {
    /// The status the binary would exit with.
    var status: Int32
    /// What `-o` received: the results in the format asked for.
    var output: String

    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The results as JSON objects (the default format).
    func records() throws -> [[String: Any]] {
        try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)") }
    }
}

/// Runs `arguments` (a command, its options and inputs, no `-o`) in this process; `extension` names the results file
/// as the format wants it (`.jsonl`, `.csv`, `.json`, ...).
func inProcess(_ arguments: [String], extension fileExtension: String = "jsonl") throws -> InProcessRun {
    let directory = try temporaryDirectory("in-process")
    defer { try? FileManager.default.removeItem(at: directory) }
    let results = directory.appendingPathComponent("results.\(fileExtension)")
    let error = FaceCamCommand.outcome(of: arguments + ["-o", results.path], watchingSignals: false)
    let status = error.map { FaceCamCommand.exitCode(for: $0).rawValue } ?? 0
    let output = (try? String(contentsOf: results, encoding: .utf8)) ?? ""
    return InProcessRun(status: status, output: output)
}

func inProcess(_ arguments: String...) throws -> InProcessRun {
    try inProcess(arguments)
}
