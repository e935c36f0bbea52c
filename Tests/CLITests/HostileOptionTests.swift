import Downsample
import Foundation
import WarmSupport
import WarmTestSupport
import XCTest

/// Every value-taking option of every command, given what a slip of the
/// keyboard or a bad template gives: the process never crashes (no status
/// >= 128, no signal), and a usage error (64) names the option. The options
/// are read from each command's `warm help` page, so a new option is driven
/// too; a new command fails `testEveryListedCommandIsDriven` until it has an
/// entry in `commands`.
final class HostileOptionTests: XCTestCase {
    static let hostileValues = ["inf", "nan", "-1", "0", "1e300", "99999999999999999999", "-9223372036854775808", "", "word"]

    /// Each command with arguments that let it pass validation and then fail
    /// (or finish) fast: an API nobody listens on, an empty cache directory, a
    /// small image. `IMAGE` is replaced by a real JPEG.
    static let commands: [(path: [String], base: [String])] = [
        (["run"], ["--api", "http://127.0.0.1:9/", "--cache-dir", "cache", "--no-progress", "--max-attempts", "1"]),
        (["demo"], ["--dir", "demo", "--products", "1", "--port", "0", "--no-progress"]),
        (["thumbnail"], ["IMAGE", "--out", "out"]),
        (["inspect"], ["IMAGE"]),
        (["serve"], ["--port", "0", "--products", "1"]),
        (["report"], ["--metrics", "missing.jsonl", "--out", "report"]),
        (["check"], ["--metrics", "missing.jsonl", "--baseline", "baseline.json"]),
        (["cache", "get"], ["cache", "http://127.0.0.1:9/a.jpg"]),
        (["cache", "merge"], ["cache"]),
        (["cache", "evict"], ["cache", "--max-size", "1MB"]),
        (["cache", "stats"], ["cache"]),
        (["cache", "verify"], ["cache"]),
        (["cache", "gc"], ["cache"]),
        (["cache", "serve"], ["cache", "--port", "0"]),
        (["cache", "export"], ["cache", "--out", "manifest.jsonl"]),
    ]

    /// Options `--help` hides (old spellings kept for a release), driven all the same.
    static let hiddenOptions: [String: [String]] = ["cache serve": ["max-age"]]

    /// A process still running after this long has passed validation (`serve`, `demo`).
    static let acceptedAfterSeconds = 2.5

    func testEveryListedCommandIsDriven() throws {
        var listed: Set<String> = []
        for command in ["", "cache"] {
            let help = try WarmBinary.run(command.isEmpty ? ["--help"] : ["help", command])
            let names = Self.subcommands(in: help.stdout).filter { $0 != "help" }
            XCTAssertFalse(names.isEmpty, help.stdout)
            for name in names where !(command.isEmpty && name == "cache") {
                listed.insert(command.isEmpty ? name : command + " " + name)
            }
        }
        let driven = Set(Self.commands.map { $0.path.joined(separator: " ") })
        XCTAssertEqual(listed.subtracting(driven), [], "commands without an entry in HostileOptionTests.commands")
    }

    func testNoOptionOfAnyCommandCrashesAndEveryRejectionNamesTheOption() async throws {
        let directory = try makeTemporaryDirectory()
        let image = directory.appendingPathComponent("small.jpg")
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: 64, height: 48, seed: 3), width: 64, height: 48,
                                 bands: 3, as: CompositionEncoding(format: .jpeg)).write(to: image)
        var tries: [(option: String, arguments: [String])] = []
        for command in Self.commands {
            let help = try WarmBinary.run(["help"] + command.path)
            let options = Self.valueOptions(in: help.stdout) + (Self.hiddenOptions[command.path.joined(separator: " ")] ?? [])
            let base = command.base.map { $0 == "IMAGE" ? image.path : $0 }
            for option in options {
                for value in Self.hostileValues {
                    tries.append((option, command.path + base + ["--" + option, value]))
                    if value.hasPrefix("-") { tries.append((option, command.path + base + ["--\(option)=\(value)"])) }
                }
            }
        }
        let outcomes = try await Self.launchAll(tries.map(\.arguments), in: directory, concurrency: 8)
        var failures: [String] = []
        for (attempt, outcome) in zip(tries, outcomes) where !outcome.stillRunning {
            let line = "warm " + attempt.arguments.map { $0.isEmpty ? "''" : $0 }.joined(separator: " ")
            if outcome.signalled || outcome.status >= 128 {
                failures.append("\(line): crashed (status \(outcome.status), signal: \(outcome.signalled))\n\(outcome.stderr.suffix(400))")
            } else if outcome.status == 64, !outcome.stderr.contains("--" + attempt.option) {
                failures.append("\(line): rejected without naming --\(attempt.option): \(outcome.stderr.prefix(300))")
            }
        }
        XCTAssertGreaterThan(tries.count, 400)
        XCTAssertEqual(failures, [], "\(failures.count) of \(tries.count) tries failed:\n" + failures.prefix(20).joined(separator: "\n"))
    }

    func testMeasureRepeatsTakesTwoOrThreePositiveCounts() throws {
        let directory = try makeTemporaryDirectory()
        for value in ["2,1,3,4", "2,,3", "1,0,1", "3"] {
            let result = try WarmBinary.run(["report", "--metrics", "missing.jsonl", "--out", directory.path, "--measure-repeats", value])
            XCTAssertEqual(result.status, 64, value)
            XCTAssertTrue(result.stderr.contains("--measure-repeats"), "\(value): \(result.stderr)")
        }
        for value in ["2,3", "1,1,1"] {
            let result = try WarmBinary.run(["report", "--metrics", "missing.jsonl", "--out", directory.path, "--measure-repeats", value])
            XCTAssertEqual(result.status, 1, "\(value) passes validation and fails on the missing file: \(result.stderr)")
        }
    }

    /// `--name <value>` lines of a help page's OPTIONS (flags take no value).
    static func valueOptions(in help: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"^\s+(?:-\w, )?--([a-z0-9-]+) <"#, options: [.anchorsMatchLines])
        let range = NSRange(help.startIndex..., in: help)
        let names = regex.matches(in: help, range: range).compactMap { Range($0.range(at: 1), in: help).map { String(help[$0]) } }
        return Array(Set(names)).sorted()
    }

    /// The names under a help page's SUBCOMMANDS.
    static func subcommands(in help: String) -> [String] {
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("  See ") && !$0.isEmpty }
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                return line.split(separator: " ").first.map { String($0) }
            }
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
