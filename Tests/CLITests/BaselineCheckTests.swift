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
}
