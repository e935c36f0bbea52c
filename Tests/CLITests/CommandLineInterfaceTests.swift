import DemoCatalog
import Servers
import Foundation
import WarmSupport
import WarmTestSupport
import XCTest

/// What a person and a log pipeline see of `warm`: help pages with defaults as people write them, options grouped
/// by purpose, log settings that refuse typos, JSON log lines, and a cron line that is silent on a good night.
final class CommandLineInterfaceTests: XCTestCase {
    /// Every command's help page (the list `HostileOptionTests` drives).
    func testNoHelpPageShowsASwiftValueAsADefault() throws {
        for command in HostileOptionTests.commands {
            let help = try WarmBinary.run(["help"] + command.path)
            XCTAssertEqual(help.status, 0, help.stderr)
            for dump in ["(seconds:", "(bytes:", "DurationArgument", "ByteCount", "Optional("] {
                XCTAssertFalse(help.stdout.contains(dump), "warm help \(command.path.joined(separator: " ")) shows \(dump)")
            }
        }
        let run = try WarmBinary.run(["run", "--help"]).stdout
        let flat = run.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for shown in ["(default: 12h)", "(default: 7d)", "(default: 64 MiB)", "(default: 20s)", "(default: 30s)",
                      "(default: the number of cores)"] {
            XCTAssertTrue(flat.contains(shown), "warm run --help lacks \(shown)")
        }
        for option in ["--decode-concurrency <", "--measure-processes <"] {
            let entry = flat.components(separatedBy: option).dropFirst().first?.components(separatedBy: " --").first ?? ""
            XCTAssertTrue(entry.contains("the number of cores"), entry)
            XCTAssertNil(entry.range(of: #"\(default: \d+\)"#, options: .regularExpression),
                         "the core count of the machine that printed the help is no default: \(entry)")
        }
    }

    func testRunAndDemoHelpGroupOptionsByPurpose() throws {
        for command in ["run", "demo"] {
            let help = try WarmBinary.run(["help", command]).stdout
            var last = help.startIndex
            for title in ["THUMBNAILS:", "FRESHNESS AND PRUNING:", "FETCHING:", "DECODING:", "MEASURING:", "OUTPUT:"] {
                guard let found = help.range(of: "\n" + title + "\n", range: last..<help.endIndex) else {
                    return XCTFail("warm \(command) --help has no section \(title) after the previous one:\n\(help)")
                }
                last = found.upperBound
            }
            let fetching = Self.section("FETCHING:", of: help)
            for option in ["--concurrency", "--request-timeout", "--max-attempts", "--allow-host"] {
                XCTAssertTrue(fetching.contains(option), "\(command): \(option) is not under FETCHING")
            }
            XCTAssertTrue(Self.section("FRESHNESS AND PRUNING:", of: help).contains("--max-age <"))
            XCTAssertTrue(Self.section("OUTPUT:", of: help).contains("--log-format <"))
        }
        XCTAssertTrue(Self.section("SHARDING:", of: try WarmBinary.run(["help", "run"]).stdout).contains("--shards <"))
    }

    func testUnknownLogLevelOrFormatIsAUsageErrorNamingTheValueAndTheChoices() throws {
        let arguments = ["run", "--api", "http://127.0.0.1:9/", "--cache-dir", try makeTemporaryDirectory().path]
        let level = try WarmBinary.run(arguments, environment: ["WARM_LOG_LEVEL": "verbose"])
        XCTAssertEqual(level.status, 64, level.stderr)
        XCTAssertTrue(level.stderr.contains("WARM_LOG_LEVEL is 'verbose'"), level.stderr)
        XCTAssertTrue(level.stderr.contains("trace, debug, info, notice, warning, error, critical"), level.stderr)
        let format = try WarmBinary.run(["cache", "stats", "nowhere"], environment: ["WARM_LOG_FORMAT": "xml"])
        XCTAssertEqual(format.status, 64, format.stderr)
        XCTAssertTrue(format.stderr.contains("WARM_LOG_FORMAT is 'xml'") && format.stderr.contains("text, json"), format.stderr)
        let option = try WarmBinary.run(arguments + ["--log-format", "xml"])
        XCTAssertEqual(option.status, 64, option.stderr)
        XCTAssertTrue(option.stderr.contains("--log-format"), option.stderr)
        // Any case of a valid name is taken.
        let upper = try WarmBinary.run(["cache", "stats", "nowhere"], environment: ["WARM_LOG_LEVEL": "WARNING"])
        XCTAssertNotEqual(upper.status, 64, upper.stderr)
    }

    /// Retried downloads are logged at debug with metadata (URL, attempt): every line of standard error is one JSON
    /// object with the fields a pipeline indexes.
    func testJSONLogLinesAreObjectsWithTimestampLevelLabelSourceMessageAndMetadata() async throws {
        let server = try await CatalogServer.start(configuration: TestCatalog.configuration(products: 30),
                                                   faultPlan: try FaultPlan(parsing: "image-503=30%x1"),
                                                   hooks: CatalogTestHooks())
        let directory = try makeTemporaryDirectory()
        let result = try WarmBinary.run(
            ["run", "--api", server.baseURL.absoluteString, "--cache-dir", directory.path, "--size", "64", "--log-format", "json"],
            environment: ["WARM_LOG_LEVEL": "debug"])
        await server.shutdown()
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 3, result.stderr)
        var levels: Set<String> = [], withMetadata = 0
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                XCTFail("not a JSON object: \(line)")
                continue
            }
            XCTAssertEqual(Set(object.keys), ["timestamp", "level", "label", "source", "message", "metadata"], String(line))
            let timestamp = try XCTUnwrap(object["timestamp"] as? String)
            XCTAssertNotNil(try? Date(timestamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)), timestamp)
            levels.insert(try XCTUnwrap(object["level"] as? String))
            XCTAssertEqual(object["label"] as? String, "warm")
            XCTAssertFalse(try XCTUnwrap(object["message"] as? String).isEmpty)
            XCTAssertNotNil(object["source"] as? String)
            let metadata = try XCTUnwrap(object["metadata"] as? [String: Any], String(line))
            if !metadata.isEmpty { withMetadata += 1 }
        }
        XCTAssertTrue(levels.isSubset(of: ["trace", "debug", "info", "notice", "warning", "error", "critical"]), "\(levels)")
        XCTAssertTrue(levels.contains("debug"), "the retries were logged at debug: \(levels)")
        XCTAssertGreaterThan(withMetadata, 0, "the retry lines carry metadata")
    }

    /// docs/running-nightly.md's cron line against `warm serve`: one summary line on stdout, nothing on stderr, so
    /// cron mails nothing on a good night. A failed image still reaches stderr.
    func testDocumentedCronLinePrintsOneLineAndNothingOnStandardError() throws {
        let directory = try makeTemporaryDirectory()
        func cronLine(_ api: URL, cache: String) -> [String] {
            ["run", "--api", api.absoluteString, "--cache-dir", directory.appendingPathComponent(cache).path,
             "--size", "300", "--size", "600", "--prometheus-file", directory.appendingPathComponent("warm.prom").path,
             "--no-progress"]
        }
        let good = try WarmServe(["--products", "40", "--image-mix", "miniature"], self)
        let night = try WarmBinary.run(cronLine(good.baseURL, cache: "cache"))
        XCTAssertEqual(night.status, 0, night.stderr)
        XCTAssertEqual(night.stdout.filter { $0 == "\n" }.count, 1, "exactly one line: \(night.stdout)")
        XCTAssertTrue(night.stdout.hasSuffix("\n"), night.stdout)
        XCTAssertTrue(night.stdout.hasPrefix("warm: ") && night.stdout.contains("40 products"), night.stdout)
        XCTAssertEqual(night.stderr, "", "cron would mail this")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("warm.prom").path))

        let faulty = try WarmServe(["--products", "40", "--image-mix", "miniature", "--faults", "image-404=10%"], self)
        let bad = try WarmBinary.run(cronLine(faulty.baseURL, cache: "faulty"))
        XCTAssertTrue(bad.stderr.contains("warning") && bad.stderr.contains("404"), "a failed image is still reported: \(bad.stderr)")
    }

    /// `warm cache serve --max-age` was renamed `--cache-control-max-age` (in `run`, `--max-age` is freshness); the
    /// old spelling still sets the header for one release.
    func testOldMaxAgeSpellingOfCacheServeStillSetsCacheControl() async throws {
        let directory = try makeTemporaryDirectory()
        let server = try await TestCatalog.start(products: 6)
        let cache = directory.appendingPathComponent("cache").path
        let warm = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64",
                                       "--no-progress"])
        XCTAssertEqual(warm.status, 0, warm.stderr)
        let thumbnails = await TestCatalog.distinctThumbnails(server)
        let url = try XCTUnwrap(thumbnails.sorted().first)
        await server.shutdown()
        for (arguments, expected) in [(["--max-age", "2h"], "max-age=7200,"), (["--cache-control-max-age", "3h"], "max-age=10800,"),
                                      ([], "max-age=86400,")] {
            let origin = try OriginProcess(cache: cache, self, arguments: arguments)
            let answer = try await origin.get(OriginProcess.thumbnailQuery(url: url, size: 64))
            XCTAssertEqual(answer.status, 200)
            XCTAssertTrue(answer.header("Cache-Control")?.contains(expected) == true, "\(arguments): \(answer.header("Cache-Control") ?? "-")")
            _ = try await origin.terminate()
        }
        let both = try WarmBinary.run(["cache", "serve", cache, "--port", "0", "--max-age", "2h", "--cache-control-max-age", "3h"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("--cache-control-max-age"), both.stderr)
        XCTAssertFalse(try WarmBinary.run(["help", "cache", "serve"]).stdout.contains("--max-age <"), "the old spelling is hidden")
    }

    func testTheDemoCatalogAndTheOriginDefaultToDifferentPorts() throws {
        func defaultPort(_ command: [String]) throws -> String? {
            let help = try WarmBinary.run(["help"] + command).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard let option = help.range(of: "--port <port>") else { return nil }
            let rest = help[option.upperBound...]
            guard let start = rest.range(of: "(default: ") else { return nil }
            return String(rest[start.upperBound...].prefix { $0 != ")" })
        }
        let catalog = try XCTUnwrap(try defaultPort(["serve"]))
        XCTAssertEqual(catalog, try defaultPort(["demo"]), "warm serve is the demo's catalog: same port, same cache keys")
        XCTAssertNotEqual(catalog, try defaultPort(["cache", "serve"]))
    }

    /// The lines of a help page from `title` to the next blank line.
    static func section(_ title: String, of help: String) -> String {
        guard let start = help.range(of: "\n" + title + "\n") else { return "" }
        let rest = help[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
    }
}

/// `warm serve --port 0 ...` as a child process, stopped when the test ends.
struct WarmServe {
    let baseURL: URL

    init(_ arguments: [String], _ test: XCTestCase) throws {
        let child = try WarmBinary.spawn(["serve", "--port", "0"] + arguments, standardOutput: .pipe)
        // Kept open until the end: the server must not meet a closed standard output.
        let output = child.standardOutput!
        test.addTeardownBlock {
            child.kill(SIGKILL)
            _ = await child.waitForExit()
            close(output)
        }
        var line: [UInt8] = []
        while !line.contains(UInt8(ascii: "\n")), let chunk = FileDescriptorIO.readChunk(output) { line += chunk }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), text.hasPrefix("http://127.0.0.1:") else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "warm serve did not start: \(text)"])
        }
        baseURL = url
    }
}
