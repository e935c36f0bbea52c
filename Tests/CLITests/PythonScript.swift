import Foundation
@testable import WarmSupport
import WarmTestSupport

/// The repository's root folder (this file is Tests/CLITests/PythonScript.swift): where the scripts, docs and reports are.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs one of the repository's Python scripts (scripts/*.py) and returns its status and its output, stderr included.
func runPythonScript(_ script: URL, _ arguments: [String] = []) throws -> (status: Int32, output: String) {
    let outcome = try ChildProcess.run("/usr/bin/env", arguments: ["python3", script.path] + arguments,
                                       environment: ProcessInfo.processInfo.environment)
    return (outcome.status.shellStatus, outcome.stdout + outcome.stderr)
}
