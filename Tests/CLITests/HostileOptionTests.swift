@testable import Downsample
import DemoCatalog
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// Every value-taking option of every command, given what a slip of the keyboard or a bad template gives
/// (`HostileOptions`), as the binary: the process never crashes (no status >= 128, no signal), and a usage error (64)
/// names the option. The options are read from each command's `warm help` page, so a new option is driven too;
/// CommandTests' HostileOptionParsingTests fails on a new command until `HostileOptions.commands` drives it.
///
/// Launched rather than parsed in the test process: a parse costs about the same either way (ArgumentParser checks
/// each command's definition on every parse in a debug build: 47% of the in-process sweep's time under `perf`), and
/// a value that passes parsing runs the command, where a crash could still hide.
final class HostileOptionTests: XCTestCase {
    /// A process still running after this long has passed validation (`serve`, `demo`).
    static let acceptedAfterSeconds = 2.5

    func testNoOptionOfAnyCommandCrashesAndEveryRejectionNamesTheOption() async throws {
        let directory = try makeTemporaryDirectory()
        let image = directory.appendingPathComponent("small.jpg")
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: 64, height: 48, seed: 3), width: 64, height: 48,
                                 bands: 3, as: CompositionEncoding(format: .jpeg)).write(to: image)
        // `run`'s accepted values run a whole night against this catalog.
        let catalog = try await CatalogServer.start(configuration: TestCatalog.configuration(products: 1, shared: 0, without: 0))
        let tries = try HostileOptions.tries(image: image.path, api: catalog.baseURL.absoluteString) {
            try WarmBinary.run(["help"] + $0).stdout
        }
        let outcomes = try await Self.launchAll(tries.map(\.arguments), in: directory, concurrency: 8)
        var failures: [String] = []
        for (attempt, outcome) in zip(tries, outcomes) where !outcome.stillRunning {
            let line = HostileOptions.line(attempt.arguments)
            if outcome.signalled || outcome.status >= 128 {
                failures.append("\(line): crashed (status \(outcome.status), signal: \(outcome.signalled))\n\(outcome.stderr.suffix(400))")
            } else if outcome.status == 64, !outcome.stderr.contains("--" + attempt.option) {
                failures.append("\(line): rejected without naming --\(attempt.option): \(outcome.stderr.prefix(300))")
            }
        }
        XCTAssertGreaterThan(tries.count, 400)
        let finishedRuns = zip(tries, outcomes).filter { $0.arguments[0] == "run" && $1.status == 0 && !$1.stillRunning }
        XCTAssertGreaterThan(finishedRuns.count, 0, "no accepted value of run warmed the catalog")
        await catalog.shutdown()
        XCTAssertEqual(failures, [], "\(failures.count) of \(tries.count) tries failed:\n" + failures.prefix(20).joined(separator: "\n"))
    }

    struct Outcome: Sendable {
        var status: Int32
        var signalled: Bool
        var stillRunning: Bool
        var stderr: String
    }

    /// Runs every argument list, `concurrency` at a time, each in a directory of its own.
    static func launchAll(_ runs: [[String]], in directory: URL, concurrency: Int) async throws -> [Outcome] {
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            var results = [Outcome?](repeating: nil, count: runs.count)
            var next = 0
            func add() {
                let index = next, arguments = runs[index]
                next += 1
                let place = directory.appendingPathComponent("try-\(index)")
                group.addTask { (index, try await launch(arguments, in: place)) }
            }
            while next < min(concurrency, runs.count) { add() }
            while let (index, outcome) = try await group.next() {
                results[index] = outcome
                if next < runs.count { add() }
            }
            return results.map { $0! }
        }
    }

    private static func launch(_ arguments: [String], in place: URL) async throws -> Outcome {
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: place.appendingPathComponent("cache"), withIntermediateDirectories: true)
        let errorFile = place.appendingPathComponent("stderr.txt")
        let child = try WarmBinary.spawn(arguments, environment: ["SWIFT_BACKTRACE": "enable=no"],
                                         standardError: .file(errorFile.path), workingDirectory: place.path)
        let deadline = Date().addingTimeInterval(acceptedAfterSeconds)
        var status = child.exitStatusIfExited()
        while status == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
            status = child.exitStatusIfExited()
        }
        let stillRunning = status == nil
        if stillRunning {
            child.kill(SIGKILL)
            // Reaped by its pid: a grandchild still holding its descriptors (the demo's catalog server) cannot hold it.
            _ = await child.waitForExit()
        }
        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: place)
        switch status {
        case .exited(let code): return Outcome(status: code, signalled: false, stillRunning: false, stderr: stderr)
        case .signalled(let signal): return Outcome(status: signal, signalled: true, stillRunning: false, stderr: stderr)
        case nil: return Outcome(status: 0, signalled: false, stillRunning: true, stderr: stderr)
        }
    }
}
