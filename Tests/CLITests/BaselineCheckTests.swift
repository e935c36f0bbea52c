import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import WarmTestSupport
import XCTest

/// The downsampling regression check CI runs: the sample catalog (`warm demo --products 24`) measured now, served on
/// any port, by whichever build, must match `reports/baseline.json` image by image; too few images compared or another
/// target size fail it with status 7.
final class BaselineCheckTests: XCTestCase {
    static let baseline = repositoryRoot
        .appendingPathComponent("reports/baseline.json").path

    /// Measured on another port beside two CPU-bound processes (as on a shared CI runner), an unchanged build passes
    /// image by image: the check counts the work, it does not time it. The same run shows that the measured thumbnail
    /// engine is the one that fills the cache (every `outputSHA256` is the cached file's).
    func testSampleMeasuredOnALoadedMachineOnAnotherPortPassesImageByImageAndHalfOfItFails() throws {
        let directory = try makeTemporaryDirectory()
        let now = directory.appendingPathComponent("now")
        try SampleCatalog.withTwoBusyProcesses { _ = try SampleCatalog.measure(in: now) }
        let metrics = now.appendingPathComponent("metrics.jsonl")
        let junit = directory.appendingPathComponent("check.xml"), json = directory.appendingPathComponent("check.json")
        let check = try WarmBinary.run(["check", "--metrics", metrics.path, "--baseline", Self.baseline,
                                        "--junit", junit.path, "--json", json.path])
        XCTAssertEqual(check.status, 0, "the sample catalog regressed against reports/baseline.json:\n\(check.stdout)\(check.stderr)")
        try SampleCatalog.assertMeasuredIsCached(metrics: metrics.path, cache: now.appendingPathComponent("cache").path, expected: 23)
        XCTAssertTrue(check.stdout.contains("23 of 23 baseline images compared (0 missing, 0 changed), 0 regressions"), check.stdout)
        let document = try XMLDocument(contentsOf: junit)
        let cases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        XCTAssertEqual(cases.filter { $0.attribute(forName: "classname")?.stringValue == "warm.check.images" }.count, 23)
        // CPU time is compared (advisory) only against a baseline from the same build as this test's warm (debug).
        let baselineBuild = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.baseline)))
                                          as? [String: Any])["build"] as? String
        XCTAssertEqual(cases.filter { $0.attribute(forName: "classname")?.stringValue == "warm.check.catalog" }.count,
                       baselineBuild == "debug" ? 5 : 4)
        XCTAssertEqual(try document.nodes(forXPath: "//failure").count, 0)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        XCTAssertEqual(result["passed"] as? Bool, true)
        XCTAssertEqual(result["comparedImages"] as? Int, 23)

        // Half the images gone: status 7, not a pass.
        let lines = try String(contentsOf: metrics, encoding: .utf8).split(separator: "\n")
        let half = directory.appendingPathComponent("half.jsonl")
        try lines.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element + "\n" }.joined()
            .write(to: half, atomically: true, encoding: .utf8)
        let halfCheck = try WarmBinary.run(["check", "--metrics", half.path, "--baseline", Self.baseline])
        XCTAssertEqual(halfCheck.status, 7, halfCheck.stdout + halfCheck.stderr)
        XCTAssertTrue(halfCheck.stdout.contains("not comparable: compared 1"), halfCheck.stdout)
        XCTAssertTrue(halfCheck.stdout.contains("fewer than the 23 required (--min-compared)"), halfCheck.stdout)
        let allowed = try WarmBinary.run(["check", "--metrics", half.path, "--baseline", Self.baseline, "--min-compared", "10"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
    }

    func testARaisedThumbnailSizeIsNotComparable() throws {
        let directory = try makeTemporaryDirectory()
        let raised = directory.appendingPathComponent("raised")
        let port = try Socket.ephemeralPort()
        let bigger = try WarmBinary.run(["demo"] + WarmBinary.patient + ["--products", "24", "--no-progress", "--port", "\(port)", "--dir", raised.path,
                                         "--size", "360", "--no-detail-images"])
        XCTAssertEqual(bigger.status, 0, bigger.stderr)
        let failing = try WarmBinary.run(["check", "--metrics", raised.appendingPathComponent("metrics.jsonl").path,
                                          "--baseline", Self.baseline, "--sizes-only"])
        XCTAssertEqual(failing.status, 7, failing.stdout + failing.stderr)
        XCTAssertTrue(failing.stdout.contains("not comparable: the target size is 360 px, the baseline's 300 px"), failing.stdout)
        XCTAssertTrue(failing.stdout.contains("thumbnail output size changed"), "the images are still compared:\n\(failing.stdout)")
    }

    func testASampledDemoIsComparedByItsCountedPixelsWithoutPeaks() throws {
        let directory = try makeTemporaryDirectory()
        let dir = directory.appendingPathComponent("sampled")
        // The demo's default: peaks measured for about one image in five, the others recorded unmeasured, every one
        // with the pixels the warm's own decode counted.
        let port = try Socket.ephemeralPort()
        let run = try WarmBinary.run(["demo", "--products", "24", "--port", "\(port)", "--no-progress", "--dir", dir.path,
                                      "--no-detail-images"] + WarmBinary.patient)
        XCTAssertEqual(run.status, 0, run.stderr)
        let metrics = try String(contentsOf: dir.appendingPathComponent("metrics.jsonl"), encoding: .utf8)
        let lines = metrics.split(separator: "\n")
        let unmeasured = lines.filter { $0.contains("\"measured\":false") }.count
        XCTAssertGreaterThan(unmeasured, 0, "the sample leaves images unmeasured")
        XCTAssertLessThan(unmeasured, lines.count, "and measures some")

        let check = try WarmBinary.run(["check", "--metrics", dir.appendingPathComponent("metrics.jsonl").path,
                                        "--baseline", Self.baseline])
        XCTAssertEqual(check.status, 0, "unmeasured images are compared by their pixels and sizes:\n\(check.stdout)\(check.stderr)")
        XCTAssertTrue(check.stdout.contains("\(lines.count) of \(lines.count) baseline images compared"), check.stdout)

        let report = try String(contentsOf: dir.appendingPathComponent("report/memory-comparison.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("Sample: peaks measured for \(lines.count - unmeasured) of \(lines.count) images"), report)
    }
}
