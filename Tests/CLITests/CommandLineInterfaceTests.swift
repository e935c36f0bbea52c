@testable import DemoCatalog
@testable import Servers
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// What a person and a log pipeline see of `warm` run as a process: log settings that refuse typos, JSON log lines,
/// and a cron line that is silent on a good night. The help pages are CommandTests' HelpPageTests.
final class CommandLineInterfaceTests: XCTestCase {
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
