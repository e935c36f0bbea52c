@testable import DemoCatalog
import Foundation
@testable import WarmSupport
@testable import Pipeline
import WarmTestSupport
import XCTest

/// `warm run` (the real binary) stopped by SIGTERM at ten points of a run,
/// as Kubernetes stops a job (node drain, eviction, activeDeadlineSeconds) or
/// `timeout` does: each time it exits with status 4 before it has done the
/// work, its summary says SIGTERM stopped it, the Prometheus file is written
/// after the signal, `warm cache verify` passes, and one more run finishes the
/// work.
final class GracefulStopTests: XCTestCase {
    static let graceSeconds = 3.0
    /// From the first page to images being fetched, decoded and stored: every
    /// image's body takes a second (`image-slow`), 4 at a time, so the run
    /// lasts about 15 s and the last points fall well before its end.
    /// Seconds after the run took the cache lock (signals are trapped by then).
    static let signalDelays = [0.05, 0.3, 0.8, 1.5, 2.5, 3.5, 5.0, 6.5, 8.0, 10.0]

    func testSIGTERMAtTenPointsStopsGracefullyAndTheNextRunFinishes() async throws {
        let server = try await CatalogServer.start(configuration: TestCatalog.configuration(products: 60, shared: 0, without: 0),
                                                   faultPlan: try FaultPlan(parsing: "image-slow=100%"))
        let distinct = await TestCatalog.distinctThumbnails(server).count
        let root = try makeTemporaryDirectory()
        let failures = await withTaskGroup(of: [String].self) { group in
            for (index, delay) in Self.signalDelays.enumerated() {
                let directory = root.appendingPathComponent("case-\(index)")
                group.addTask {
                    do {
                        return try await Self.stopAndResume(server.baseURL, directory: directory, after: delay, distinct: distinct)
                    } catch {
                        return ["SIGTERM after \(delay) s: \(error)"]
                    }
                }
            }
            var all: [String] = []
            for await failures in group { all += failures }
            return all
        }
        await server.shutdown()
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }

    /// One case: run, SIGTERM after `delay`, check the stop, verify, run again to the end.
    private static func stopAndResume(_ api: URL, directory: URL, after delay: Double, distinct: Int) async throws -> [String] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = directory.appendingPathComponent("cache").path
        let prometheus = directory.appendingPathComponent("warm.prom").path
        let arguments = ["run", "--api", api.absoluteString, "--cache-dir", cache, "--size", "48", "--no-progress",
                         "--concurrency", "4", "--decode-concurrency", "1", "--items-per-page", "10",
                         "--stop-grace", "\(graceSeconds)s", "--prometheus-file", prometheus]
        let log = directory.appendingPathComponent("stopped.log")
        let child = try launch(arguments, log: log)
        let started = Date()
        while !FileManager.default.fileExists(atPath: cache + "/.lock"), Date().timeIntervalSince(started) < 30 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .seconds(delay))
        let signalledAt = Date()
        child.kill(SIGTERM)
        // Only a bound on a hang: the stop waits at most for the grace period (3 s) and the images in flight
        // (1 s each); 60 s leaves a loaded 2-core machine over 10x that. Promptness is counted below instead.
        let limit = signalledAt.addingTimeInterval(60)
        var status = child.exitStatusIfExited()
        while status == nil, Date() < limit {
            try await Task.sleep(for: .milliseconds(20))
            status = child.exitStatusIfExited()
        }
        var failures: [String] = []
        let label = "SIGTERM after \(delay) s"
        guard let status else {
            child.kill(SIGKILL)
            _ = await child.waitForExit()
            return ["\(label): still running 60 s after the signal"]
        }
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        if status != .exited(4) {
            failures.append("\(label): \(status), not status 4\n\(stderr.suffix(1500))")
        }
        let summary = try decodeSummary(cache + "/last-run.json")
        if !summary.stoppedEarly || summary.stoppedBySignal != "SIGTERM" || summary.stopReason?.contains("SIGTERM") != true {
            failures.append("\(label): the summary does not say SIGTERM stopped the run: \(summary.stopReason ?? "no reason")")
        }
        // The run lasts 15 s at the least (60 images of 1 s, 4 at a time) and the last signal comes at 10 s: a
        // stop that admitted no new work leaves some undone.
        let done = summary.imagesDownloaded + summary.imagesFresh + summary.imagesNotModified
        if done >= distinct {
            failures.append("\(label): the stopped run did all \(distinct) images instead of stopping")
        }
        let written = (try FileManager.default.attributesOfItem(atPath: prometheus)[.modificationDate] as? Date) ?? .distantPast
        if written < signalledAt.addingTimeInterval(-0.01) {
            failures.append("\(label): the Prometheus file was not written after the signal")
        }
        if !((try? String(contentsOfFile: prometheus, encoding: .utf8))?.contains("warm_last_run_stopped_early 1") ?? false) {
            failures.append("\(label): the Prometheus file does not say the run stopped early")
        }
        // Waited for without blocking a thread: the catalog server runs on this process's cooperative pool.
        let verify = try await runToEnd(["cache", "verify", cache], log: directory.appendingPathComponent("verify.log"))
        if verify.status != 0 { failures.append("\(label): verify after the stop: \(verify.output)") }

        let again = try await runToEnd(arguments, log: directory.appendingPathComponent("next.log"))
        let finished = try decodeSummary(cache + "/last-run.json")
        if again.status != 0 || finished.imagesFailed != 0
            || finished.imagesDownloaded + finished.imagesFresh + finished.imagesNotModified != distinct {
            failures.append("\(label): the next run did not finish the work (status \(again.status)): \(again.output.suffix(800))")
        }
        let verifyAgain = try await runToEnd(["cache", "verify", cache], log: directory.appendingPathComponent("verify-again.log"))
        if verifyAgain.status != 0 { failures.append("\(label): verify after the next run: \(verifyAgain.output)") }
        return failures
    }

    private static func runToEnd(_ arguments: [String], log: URL) async throws -> (status: Int32, output: String) {
        let status = try await launch(arguments, log: log).waitForExit()
        return (status.shellStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    private static func launch(_ arguments: [String], log: URL) throws -> ChildProcess {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        return try WarmBinary.spawn(arguments, standardOutput: .file(log.path), standardError: .file(log.path))
    }

    static func decodeSummary(_ path: String) throws -> WarmSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(WarmSummary.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
