import ArgumentParser
@testable import FaceCamCLI
import Foundation
import Testing

/// A facecam command line run in this process through `FaceCamCommand.outcome`, the body of the binary's `main`, its
/// results written to a file of its own (`-o`) and read back. For what a run finds and writes; what a process shows
/// (its messages and standard output, statuses reported, signals) is checked on the binary. The signals and OpenCV's
/// thread pool stay the test process's (`FaceCamCommand.ownsProcess`).
struct InProcessRun {
    /// The status the binary would exit with.
    var status: Int32
    /// What ended the run when it failed (the error the binary reports or exits with).
    var error: Error?
    /// What `-o` received: the results in the format asked for.
    var output: String

    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// How the run ended, for a test's message: its status, and what failed.
    var ending: String { "status \(status)" + (error.map { ": \($0)" } ?? "") }

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
    let error = FaceCamCommand.outcome(of: arguments + ["-o", results.path], ownsProcess: false)
    let status = error.map { FaceCamCommand.exitCode(for: $0).rawValue } ?? 0
    let output = (try? String(contentsOf: results, encoding: .utf8)) ?? ""
    return InProcessRun(status: status, error: error, output: output)
}

func inProcess(_ arguments: String...) throws -> InProcessRun {
    try inProcess(arguments)
}
