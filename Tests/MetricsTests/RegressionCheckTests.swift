import Downsample
import Foundation
import WarmMetrics
import XCTest

final class RegressionCheckTests: XCTestCase {
    /// A few small catalog images in different formats.
    func catalog() throws -> [(url: String, data: Data)] {
        [
            ("https://example.test/a.jpg", try MetricsFixtures.image(width: 400, height: 300, as: CompositionEncoding(format: .jpeg))),
            ("https://example.test/b", try MetricsFixtures.image(width: 320, height: 240, seed: 2, alpha: true,
                                                                 as: CompositionEncoding(format: .png))),
            ("https://example.test/c", try MetricsFixtures.image(width: 300, height: 400, seed: 3, as: CompositionEncoding(format: .webp))),
        ]
    }

    func measureCatalog(size: Int) async throws -> [ImageMetricsRecord] {
        var records: [ImageMetricsRecord] = []
        for image in try catalog() {
            records.append(await MetricsFixtures.measure(image.data, url: image.url, longestSide: size))
        }
        return records
    }

    /// `first`, with each image's thumbnail peak the lower of its two measurements.
    func lowestThumbnailPeaks(_ first: [ImageMetricsRecord], _ second: [ImageMetricsRecord]) -> [ImageMetricsRecord] {
        zip(first, second).map { a, b in
            var lowest = a
            if let peak = b.strategies.thumbnail?.peakBytes, peak < (a.strategies.thumbnail?.peakBytes ?? .max) {
                lowest.strategies.thumbnail?.peakBytes = peak
            }
            return lowest
        }
    }

    func baselineRoundTrip(_ records: [ImageMetricsRecord]) throws -> MetricsBaseline {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("baseline.json").path
        try MetricsBaseline(records: records).write(to: path)
        return try MetricsBaseline.read(path: path)
    }

    func testCheckPassesOnItsOwnBaselineAndFailsWhenTheThumbnailSizeIsRaised() async throws {
        let at64 = try await measureCatalog(size: 64)
        XCTAssertTrue(at64.allSatisfy(\.isComplete))
        let baseline = try baselineRoundTrip(at64)
        XCTAssertEqual(baseline.targetLongestSide, 64)
        let check = RegressionCheck()

        let same = check.run(records: at64, against: baseline)
        XCTAssertTrue(same.passed, same.regressions.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(same.comparedImages, 3)

        // Measured again: only measurement noise differs, and it is allowed for. Twice, lowest
        // thumbnail peak kept, as the measurer itself does: this test shares its process with
        // the rest of the suite, whose leftover threads once added 2.3 MB to one peak.
        let remeasured = try await lowestThumbnailPeaks(measureCatalog(size: 64), measureCatalog(size: 64))
        let again = check.run(records: remeasured, against: baseline)
        XCTAssertTrue(again.passed, again.regressions.map(\.description).joined(separator: "\n"))

        let at96 = check.run(records: try await measureCatalog(size: 96), against: baseline)
        XCTAssertFalse(at96.passed)
        XCTAssertEqual(at96.shortfalls.map(\.kind), [.settingsDiffer])
        XCTAssertTrue(at96.shortfalls[0].detail.contains("the target size is 96 px, the baseline's 64 px"), at96.shortfalls[0].detail)
        let kinds = at96.regressions.map(\.kind)
        XCTAssertEqual(kinds.filter { $0 == .outputSizeChanged }.count, 3)
        XCTAssertEqual(kinds.filter { $0 == .retainedGrew }.count, 3)
        let aLine = try XCTUnwrap(at96.regressions.first { $0.kind == .outputSizeChanged && $0.url == "https://example.test/a.jpg" })
        XCTAssertEqual(aLine.description, "https://example.test/a.jpg: thumbnail output size changed from 64x48 to 96x72")
        let retained = try XCTUnwrap(at96.regressions.first { $0.kind == .retainedGrew && $0.url == "https://example.test/a.jpg" })
        XCTAssertTrue(retained.description.contains("from 12,288 to 27,648"), retained.description)
    }

    func testImageThatNowFailsIsARegression() {
        let good = MetricsFixtures.record(url: "https://example.test/x", naive: 4_000_000, renderer: 270_000, thumbnail: 270_000)
        let failedBefore = MetricsFixtures.failed(url: "https://example.test/always-broken")
        let baseline = MetricsBaseline(records: [good, failedBefore])

        let outcome = RegressionCheck().run(records: [MetricsFixtures.failed(url: "https://example.test/x"),
                                                      MetricsFixtures.failed(url: "https://example.test/always-broken")],
                                            against: baseline)
        XCTAssertEqual(outcome.regressions.map(\.kind), [.nowFails])
        XCTAssertEqual(outcome.regressions.first?.url, "https://example.test/x")
        XCTAssertTrue(outcome.regressions[0].description.contains("now fails: the 640x480 jpeg image is corrupt"),
                      outcome.regressions[0].description)

        let fixed = RegressionCheck().run(records: [good, good.with(url: "https://example.test/always-broken")], against: baseline)
        XCTAssertTrue(fixed.passed)
        XCTAssertEqual(fixed.fixedImages, 1)
    }

    func testPeakMayGrowByTheToleranceAndTheNoiseAllowanceButNoMore() {
        let allowing = RegressionCheck(tolerance: 0.10, minimumSSIM: 0.9, peakAllowanceBytes: 500_000)
        let base = MetricsFixtures.record(url: "p", naive: 4_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000)
        let baseline = MetricsBaseline(records: [base])
        func check(peak: Int) -> CheckOutcome {
            allowing.run(
                records: [MetricsFixtures.record(url: "p", naive: 4_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: peak)],
                against: baseline)
        }
        XCTAssertTrue(check(peak: 1_600_000).passed)  // 1,000,000 x 1.1 + 500,000
        let over = check(peak: 1_600_001)
        XCTAssertEqual(over.regressions.map(\.kind), [.peakGrew])
        XCTAssertTrue(over.regressions[0].description.contains("allowed up to 1,600,000"), over.regressions[0].description)
    }

    func testUnmeasuredImagesAreNeitherMissingNorPeakRegressionsButTheirSizesAreChecked() {
        // The baseline measured both images; this run measured only "m" and
        // warmed "u" outside its sample (no peak, no SSIM).
        let baseline = MetricsBaseline(records: [
            MetricsFixtures.record(url: "m", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
            MetricsFixtures.record(url: "u", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
        ])
        let run = [MetricsFixtures.record(url: "m", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
                   MetricsFixtures.unmeasured(url: "u")]
        let outcome = RegressionCheck().run(records: run, against: baseline)
        XCTAssertEqual(outcome.regressions, [])
        XCTAssertEqual(outcome.comparedImages, 2)
        XCTAssertEqual(outcome.count(.missing), 0)
        XCTAssertEqual(outcome.shortfalls.map(\.kind), [.peaksNotMeasured], "a baseline's peak the metrics lack is no pass")
        XCTAssertTrue(outcome.shortfalls[0].detail.contains("the thumbnail peak of 1 compared images that were not compared"),
                      outcome.shortfalls[0].detail)
        let sizesOnly = RegressionCheck(sizesOnly: true).run(records: run, against: baseline)
        XCTAssertTrue(sizesOnly.passed, sizesOnly.lines().joined(separator: "\n"))

        // A baseline made from a sampled run keeps the unmeasured image's sizes and no peak:
        // a later fully measured run compares its peak with nothing, and its size with the computed one.
        let sampledBaseline = MetricsBaseline(records: run)
        XCTAssertEqual(sampledBaseline.peakMethod, .residentHighWaterMark, "the method of the measured records")
        XCTAssertNil(sampledBaseline.images.first { $0.url == "u" }?.peakBytes)
        let grown = RegressionCheck().run(
            records: [MetricsFixtures.record(url: "u", naive: 1, renderer: 1, thumbnail: 270_000, thumbnailPeak: 90_000_000,
                                             thumbnailSize: PixelSize(width: 300, height: 226))],
            against: sampledBaseline)
        XCTAssertEqual(grown.regressions.map(\.kind), [.outputSizeChanged], "a peak against no peak is no regression")
    }

    func testRetainedGrowthBeyondToleranceAndLowSSIMAreRegressions() {
        let baseline = MetricsBaseline(records: [MetricsFixtures.record(url: "r", naive: 1, renderer: 1, thumbnail: 100_000)])
        let within = MetricsFixtures.record(url: "r", naive: 1, renderer: 1, thumbnail: 110_000)
        XCTAssertTrue(RegressionCheck().run(records: [within], against: baseline).passed)
        let grown = MetricsFixtures.record(url: "r", naive: 1, renderer: 1, thumbnail: 110_001, ssim: 0.85)
        let outcome = RegressionCheck().run(records: [grown], against: baseline)
        XCTAssertEqual(outcome.regressions.map(\.kind), [.retainedGrew, .ssimBelowMinimum])
        XCTAssertTrue(outcome.regressions[1].description.contains("SSIM 0.8500 is below the minimum 0.9000"))
    }

    func testBaselineIsSortedStableAndHoldsOnlyWhatTheCheckNeeds() throws {
        let records = [
            MetricsFixtures.record(url: "https://example.test/z", naive: 9, renderer: 2, thumbnail: 2),
            MetricsFixtures.failed(url: "https://example.test/m"),
            MetricsFixtures.record(url: "https://example.test/a", naive: 9, renderer: 2, thumbnail: 2),
        ]
        let encoded = MetricsBaseline(records: records).encoded()
        XCTAssertEqual(encoded, MetricsBaseline(records: records.reversed()).encoded())
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["version", "targetLongestSide", "peakMethod", "images"])
        XCTAssertEqual(object["targetLongestSide"] as? Int, 300)
        let images = try XCTUnwrap(object["images"] as? [[String: Any]])
        XCTAssertEqual(images.map { $0["url"] as? String }, ["https://example.test/a", "https://example.test/m", "https://example.test/z"])
        XCTAssertEqual(Set(images[0].keys), ["url", "decoded", "retainedBytes", "peakBytes", "outputWidth", "outputHeight", "ssim", "cpuSeconds"])
        XCTAssertEqual(images[1]["decoded"] as? Bool, false)
    }
}

extension ImageMetricsRecord {
    func with(url: String) -> ImageMetricsRecord {
        var copy = self
        copy.url = url
        return copy
    }
}
