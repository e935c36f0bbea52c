@testable import Downsample
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
@testable import WarmMetrics
import XCTest

/// What makes `warm check` unable to pass by accident, or fail on noise: images matched wherever they are served, a
/// comparison that covers too little fails, retained bytes over the catalog fail, peaks and CPU time only warn, SSIM is
/// held to the baseline's, and CI reads the result as JUnit XML.
final class CheckCoverageTests: XCTestCase {
    /// `count` measured-looking records with distinct source bytes, at `host`.
    func catalog(_ count: Int, host: String = "http://127.0.0.1:18543", peak: (Int) -> Int = { _ in 300_000 },
                 ssim: Double = 0.987) -> [ImageMetricsRecord] {
        (0..<count).map { index in
            var record = MetricsFixtures.record(url: "\(host)/thumbnails/\(index)?v=1", naive: 4_000_000, renderer: 270_000,
                                                thumbnail: 270_000, thumbnailPeak: peak(index), ssim: ssim)
            record.sourceSHA256 = "\(index)-" + String(repeating: "a", count: 60)
            (record.outputFormat, record.outputQuality) = (.jpeg, 82)
            return record
        }
    }

    func testImagesMatchBySourceBytesOrPathWhateverServesThemAndOtherBytesAtOnePathAreChanged() {
        let baseline = MetricsBaseline(records: catalog(12))
        let elsewhere = catalog(12, host: "https://cdn.example.test:8443")
        let outcome = RegressionCheck().run(records: elsewhere, against: baseline)
        XCTAssertTrue(outcome.passed, outcome.lines().joined(separator: "\n"))
        XCTAssertEqual(outcome.comparedImages, 12)

        var moved = elsewhere
        moved[0].url = "https://cdn.example.test/renamed.jpg"  // same bytes, another name
        moved[1].sourceSHA256 = "other bytes"  // same path, other bytes
        moved[2].sourceSHA256 = nil  // a record made from a cache entry: matched by path
        let changed = RegressionCheck(minimumCompared: 11).run(records: moved, against: baseline)
        XCTAssertEqual(changed.comparedImages, 11)
        XCTAssertEqual(changed.count(.changed), 1)
        XCTAssertEqual(changed.images[baseline.images.firstIndex { $0.url.hasSuffix("/thumbnails/1?v=1") }!].state, .changed)
        XCTAssertEqual(changed.regressions, [])
        XCTAssertEqual(changed.shortfalls.map(\.kind), [.pixelsNotCounted],
                       "the path-matched record may hold other bytes: its pixels cannot stand for the baseline's")
        XCTAssertEqual(changed.newImages, 0, "the changed image's record is that image, not a new one")
        moved[2].sourceSHA256 = elsewhere[2].sourceSHA256
        XCTAssertTrue(RegressionCheck(minimumCompared: 11).run(records: moved, against: baseline).passed)

        let all = RegressionCheck().run(records: moved, against: baseline)
        XCTAssertEqual(all.shortfalls.map(\.kind), [.tooFewCompared], "by default every baseline image must be compared")
    }

    func testHalfTheImagesMissingFailsWithASentence() {
        let baseline = MetricsBaseline(records: catalog(24))
        let outcome = RegressionCheck().run(records: Array(catalog(24).prefix(12)), against: baseline)
        XCTAssertEqual(outcome.regressions, [])
        XCTAssertEqual(outcome.shortfalls.map(\.kind), [.tooFewCompared])
        XCTAssertTrue(outcome.shortfalls[0].detail.hasPrefix("compared 12 of the baseline's 24 images, fewer than the 24 required"),
                      outcome.shortfalls[0].detail)
        XCTAssertFalse(outcome.passed)
        XCTAssertTrue(RegressionCheck(minimumCompared: 12).run(records: Array(catalog(24).prefix(12)), against: baseline).passed)
    }

    func testCatalogPeakGrowthEveryImageIsAllowedWarnsAndRetainedGrowthFails() {
        let baseline = MetricsBaseline(records: catalog(23))
        // +80% on each image: within the per-image allowance (+10% and 1 MiB), not within the catalog's advisory limit.
        let grown = RegressionCheck().run(records: catalog(23, peak: { _ in 540_000 }), against: baseline)
        XCTAssertTrue(grown.passed, "peaks are advisory")
        XCTAssertEqual(grown.warnings.map(\.kind), [.catalogFigure], "the median; the p90's limit is wider")
        XCTAssertTrue(grown.warnings[0].detail.hasPrefix("median of the per-image ratio thumbnail peak now/baseline is 1.800 over 23 images, above the limit 1.600"),
                      grown.warnings[0].detail)
        // Noise: a few images up and down by 20%, the median where it was.
        let noisy = RegressionCheck().run(records: catalog(23, peak: { 300_000 + ($0 % 5 == 0 ? 60_000 : $0 % 5 == 1 ? -60_000 : 0) }),
                                          against: baseline)
        XCTAssertTrue(noisy.passed, noisy.lines().joined(separator: "\n"))
        XCTAssertEqual(noisy.warnings, [])
        let retained = catalog(23).map { record -> ImageMetricsRecord in
            var bigger = record
            bigger.strategies.thumbnail?.retainedBytes = 290_000
            return bigger
        }
        XCTAssertEqual(RegressionCheck().run(records: retained, against: baseline).regressions.map(\.kind), [.catalogFigure, .catalogFigure],
                       "+7% retained on every image, within the per-image tolerance: retained bytes are exact, so they fail")
    }

    func testCPUSpreadWarnsWhenSomeImagesAreSlowerButNotForAMachineThatIsSlowerForAll() {
        let baseline = MetricsBaseline(records: catalog(23))
        func cpu(_ factor: (Int) -> Double) -> [ImageMetricsRecord] {
            catalog(23).enumerated().map { index, record in
                var changed = record
                changed.strategies.thumbnail?.cpuSeconds = (record.strategies.thumbnail?.cpuSeconds ?? 0) * factor(index)
                return changed
            }
        }
        let someSlower = RegressionCheck().run(records: cpu { $0 < 9 ? 3 : 1 }, against: baseline)
        XCTAssertTrue(someSlower.passed, "CPU time is advisory: the decoded pixels catch a lost shrink-on-load step")
        XCTAssertEqual(someSlower.warnings.map(\.detail),
                       ["p90 over median of the per-image ratio thumbnail CPU time now/baseline is 3.000 over 23 images, above the limit 1.250"])
        let slowerMachine = RegressionCheck().run(records: cpu { _ in 2 }, against: baseline)
        XCTAssertEqual(slowerMachine.warnings, [], slowerMachine.lines().joined(separator: "\n"))
    }

    func testAnSSIMDropBeyondTheAllowanceFailsAboveTheFloor() {
        let baseline = MetricsBaseline(records: catalog(12))
        let outcome = RegressionCheck().run(records: catalog(12, ssim: 0.95), against: baseline)
        XCTAssertEqual(outcome.regressions.map(\.kind), Array(repeating: .ssimDropped, count: 12))
        XCTAssertTrue(outcome.regressions[0].detail.contains("SSIM fell from 0.9870 to 0.9500"), outcome.regressions[0].detail)
        XCTAssertTrue(RegressionCheck().run(records: catalog(12, ssim: 0.978), against: baseline).passed)
    }

    func testAnotherFormatOrQualityFailsAndAVersionOneBaselineStillReads() throws {
        let baseline = MetricsBaseline(records: catalog(12))
        XCTAssertEqual(baseline.outputQuality, 82)
        let lower = catalog(12).map { record -> ImageMetricsRecord in
            var changed = record
            changed.outputQuality = 60
            return changed
        }
        let outcome = RegressionCheck().run(records: lower, against: baseline)
        XCTAssertEqual(outcome.shortfalls.map(\.detail), ["the quality is 60, the baseline's 82: measure with the baseline's settings, or write a new baseline (--update-baseline)"])

        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v1.json").path
        try Data(Self.versionOneBaseline.utf8).write(to: URL(fileURLWithPath: path))
        let old = try MetricsBaseline.read(path: path)
        XCTAssertEqual(old.version, 1)
        XCTAssertNil(old.outputFormat)
        var record = catalog(1, host: "http://127.0.0.1:18080")[0]
        record.url = "http://127.0.0.1:18080/thumbnails/a_thumb"
        let checked = RegressionCheck().run(records: [record], against: old)
        XCTAssertEqual(checked.comparedImages, 1, "matched by path on another port")
        XCTAssertEqual(checked.shortfalls.map(\.kind), [.pixelsNotCounted], "a version 1 baseline counts no pixels: no pass")
        XCTAssertTrue(checked.notes.contains { $0.contains("does not record the output format") }, "\(checked.notes)")
    }

    func testJUnitHasACasePerBaselineImageAndCatalogFigureAndOneFailingCasePerRegression() throws {
        let baseline = MetricsBaseline(records: catalog(12))
        var records = catalog(12)
        records[3].strategies.thumbnail?.decodedPixels = 3_048_192
        records[4].strategies.thumbnail?.peakBytes = 3_000_000
        records[5].strategies.thumbnail?.ssim = 0.95
        records.remove(at: 7)
        let outcome = RegressionCheck(minimumCompared: 11).run(records: records, against: baseline)
        XCTAssertEqual(outcome.regressions.count, 2)
        XCTAssertEqual(outcome.warnings.count, 1)
        let document = try XMLDocument(data: Data(outcome.junitXML().utf8))
        let cases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        XCTAssertEqual(cases.count, 12 + 5 + 1, "12 images, 5 catalog figures, the coverage")
        let failing = cases.filter { !$0.elements(forName: "failure").isEmpty }
        XCTAssertEqual(failing.compactMap { $0.attribute(forName: "name")?.stringValue },
                       ["image /thumbnails/3?v=1", "image /thumbnails/5?v=1"])
        XCTAssertTrue(failing[0].elements(forName: "failure")[0].stringValue?.contains("decoded 3,048,192 pixels") ?? false)
        let advisory = try XCTUnwrap(cases.first { $0.attribute(forName: "name")?.stringValue == "image /thumbnails/4?v=1" })
        XCTAssertTrue(advisory.elements(forName: "system-out").first?.stringValue?.hasPrefix("advisory: thumbnail peak bytes grew") ?? false)
        XCTAssertEqual(cases.filter { !$0.elements(forName: "skipped").isEmpty }.count, 1, "the missing image")
        let suite = try XCTUnwrap(document.nodes(forXPath: "//testsuite").first as? XMLElement)
        XCTAssertEqual(suite.attribute(forName: "failures")?.stringValue, "2")

        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: outcome.json()) as? [String: Any])
        XCTAssertEqual(json["passed"] as? Bool, false)
        XCTAssertEqual((json["regressions"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual((json["warnings"] as? [[String: Any]])?.count, 1)
        XCTAssertEqual(json["missingImages"] as? Int, 1)
    }

    /// The shape of reports/baseline.json as committed before identities and settings were recorded.
    static let versionOneBaseline = """
        {
          "images" : [
            {
              "decoded" : true, "outputHeight" : 225, "outputWidth" : 300, "peakBytes" : 300000,
              "retainedBytes" : 270000, "ssim" : 0.987, "url" : "http://127.0.0.1:18543/thumbnails/a_thumb"
            }
          ],
          "peakMethod" : "vmhwm",
          "targetLongestSide" : 300,
          "version" : 1
        }
        """
}
