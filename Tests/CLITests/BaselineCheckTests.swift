import Foundation
import WarmTestSupport
import XCTest

/// The downsampling regression check CI runs: the sample catalog (`warm demo
/// --products 24 --port 18543`) measured now must match `reports/baseline.json`,
/// and a raised thumbnail size must fail it.
final class BaselineCheckTests: XCTestCase {
    static let baseline = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("reports/baseline.json").path

    func testCommittedBaselinePassesAndARaisedThumbnailSizeFails() throws {
        let directory = try makeTemporaryDirectory()
        // The baseline's URLs name port 18543, so the sample catalog is served there.
        let sample = ["demo", "--products", "24", "--port", "18543", "--no-progress", "--compare", "all"]

        let now = directory.appendingPathComponent("now")
        let measured = try WarmBinary.run(sample + ["--dir", now.path])
        XCTAssertEqual(measured.status, 0, measured.stderr)
        let check = try WarmBinary.run(["check", "--metrics", now.appendingPathComponent("metrics.jsonl").path,
                                        "--baseline", Self.baseline])
        XCTAssertEqual(check.status, 0, "the sample catalog regressed against reports/baseline.json:\n\(check.stdout)\(check.stderr)")

        let raised = directory.appendingPathComponent("raised")
        let bigger = try WarmBinary.run(sample + ["--dir", raised.path, "--size", "360"])
        XCTAssertEqual(bigger.status, 0, bigger.stderr)
        let failing = try WarmBinary.run(["check", "--metrics", raised.appendingPathComponent("metrics.jsonl").path,
                                          "--baseline", Self.baseline])
        XCTAssertEqual(failing.status, 3, failing.stdout + failing.stderr)
        XCTAssertTrue(failing.stdout.contains("regression"), failing.stdout)
    }

    func testSampledDemoPassesTheBaselineWithPeaksComparedOnlyForItsSample() throws {
        let directory = try makeTemporaryDirectory()
        let dir = directory.appendingPathComponent("sampled")
        // The demo's default: peaks measured for about one image in five, the others recorded unmeasured.
        let run = try WarmBinary.run(["demo", "--products", "24", "--port", "18543", "--no-progress", "--dir", dir.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let metrics = try String(contentsOf: dir.appendingPathComponent("metrics.jsonl"), encoding: .utf8)
        let lines = metrics.split(separator: "\n")
        let unmeasured = lines.filter { $0.contains("\"measured\":false") }.count
        XCTAssertGreaterThan(unmeasured, 0, "the sample leaves images unmeasured")
        XCTAssertLessThan(unmeasured, lines.count, "and measures some")

        let check = try WarmBinary.run(["check", "--metrics", dir.appendingPathComponent("metrics.jsonl").path,
                                        "--baseline", Self.baseline])
        XCTAssertEqual(check.status, 0, "unmeasured images are no regressions:\n\(check.stdout)\(check.stderr)")
        XCTAssertTrue(check.stdout.contains("note: peaks of \(unmeasured) of \(lines.count) images were not compared"), check.stdout)
        XCTAssertFalse(check.stdout.contains("are not in the metrics"), "unmeasured images are not missing:\n\(check.stdout)")
        XCTAssertTrue(check.stdout.contains("\(lines.count) images compared"), check.stdout)

        let report = try String(contentsOf: dir.appendingPathComponent("report/memory-comparison.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("Sample: peaks measured for \(lines.count - unmeasured) of \(lines.count) images"), report)
    }
}
