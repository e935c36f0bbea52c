import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `scripts/check-docs.py` keeps README.md a first page and docs/ free of lab notes: links resolve, README.md is at
/// most 5,000 characters, and neither holds a /tmp/ path or a commit hash (provenance lives in reports/). These tests
/// run it on the real pages and on a copy with each fault planted.
final class DocsCheckTests: XCTestCase {
    private static let repository = repositoryRoot
    private var script: URL { Self.repository.appendingPathComponent("scripts/check-docs.py") }

    /// README.md and docs/ copied into a new folder (checked with `--skip-links`: their link targets are not copied).
    private func copyOfThePages() throws -> URL {
        let root = try makeTemporaryDirectory()
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("docs"),
                                         to: root.appendingPathComponent("docs"))
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("README.md"),
                                         to: root.appendingPathComponent("README.md"))
        return root
    }

    private func append(_ text: String, to file: URL) throws {
        let old = try String(contentsOf: file, encoding: .utf8)
        try (old + text).write(to: file, atomically: true, encoding: .utf8)
    }

    private func headCommit() throws -> String {
        let git = try ChildProcess.run("/usr/bin/env", arguments: ["git", "-C", Self.repository.path, "rev-parse", "--short=7", "HEAD"],
                                       environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(git.status, .exited(0), "git rev-parse failed: \(git.stderr)")
        return git.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testTheREADMEAndDocsHaveNoBrokenLinkNoScratchPathAndNoCommitHash() throws {
        let result = try runPythonScript(script)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("provenance: 0 "), result.output)
    }

    func testAScratchPathACommitHashAndALongREADMEAreEachReported() throws {
        let clean = try copyOfThePages()
        let control = try runPythonScript(script, ["--root", clean.path, "--skip-links"])
        XCTAssertEqual(control.status, 0, "the unchanged copy must pass: \(control.output)")

        let root = try copyOfThePages()
        let commit = try headCommit()
        try append("\nMeasured in `/tmp/scratch-run` on the release build of \(commit).\n",
                   to: root.appendingPathComponent("docs/measuring.md"))
        try append("\n" + String(repeating: "padding ", count: 700) + "\n", to: root.appendingPathComponent("README.md"))
        let result = try runPythonScript(script, ["--root", root.path, "--skip-links"])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("TOO LONG: README.md"), result.output)
        XCTAssertTrue(result.output.contains("a /tmp/ path (/tmp/scratch-run`)"), result.output)
        XCTAssertTrue(result.output.contains("a commit hash (\(commit))"), result.output)
        XCTAssertFalse(result.output.contains("0b3f32a"), "an ETag in an example is not a commit: \(result.output)")
    }
}
