@testable import Downsample
import Foundation
@testable import WarmMetrics
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

    func testPeakGrowthBeyondTheToleranceAndAllowanceWarnsButNeverFails() {
        let allowing = RegressionCheck(tolerance: 0.10, minimumSSIM: 0.9, peakAllowanceBytes: 500_000)
        let base = MetricsFixtures.record(url: "p", naive: 4_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000)
        let baseline = MetricsBaseline(records: [base])
        func check(peak: Int) -> CheckOutcome {
            allowing.run(
                records: [MetricsFixtures.record(url: "p", naive: 4_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: peak)],
                against: baseline)
        }
        let within = check(peak: 1_600_000)  // 1,000,000 x 1.1 + 500,000
        XCTAssertTrue(within.passed)
        XCTAssertEqual(within.warnings, [])
        let over = check(peak: 1_600_001)
        XCTAssertTrue(over.passed, "a peak depends on the machine and its load: advisory")
        XCTAssertEqual(over.regressions, [])
        XCTAssertEqual(over.warnings.map(\.kind), [.peakGrew])
        XCTAssertTrue(over.warnings[0].description.contains("allowed up to 1,600,000"), over.warnings[0].description)
        XCTAssertTrue(over.lines().contains { $0.hasPrefix("warning (advisory, does not fail the check): p: thumbnail peak bytes grew") },
                      over.lines().joined(separator: "\n"))
    }

    func testCarouselRecordsAreNeitherInTheBaselineNorChecked() {
        var carousel = MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 3_000_000, target: 1080,
                                              decodedPixels: 3_048_192)
        carousel.role = ImageMetricsRecord.carouselRole
        let thumbnail = MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 270_000, decodedPixels: 762_048)
        let baseline = MetricsBaseline(records: [thumbnail, carousel])
        XCTAssertEqual(baseline.targetLongestSide, 300)
        XCTAssertEqual(baseline.images.map(\.decodedPixels), [762_048])
        let outcome = RegressionCheck().run(records: [carousel, thumbnail], against: baseline)
        XCTAssertTrue(outcome.passed, outcome.lines().joined(separator: "\n"))
        XCTAssertTrue(outcome.shortfalls.isEmpty, "a carousel record's other target size is not a setting that differs")
        var worse = thumbnail
        worse.strategies.thumbnail?.decodedPixels = 3_048_192
        XCTAssertFalse(RegressionCheck().run(records: [carousel, worse], against: baseline).passed, "the thumbnail is still checked")
    }

    func testMorePixelsDecodedFromTheSameSourceBytesIsARegressionAndFewerIsNot() {
        let baseline = MetricsBaseline(records: [
            MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 270_000, decodedPixels: 762_048),
        ])
        // One shrink-on-load step lost: DCT scale 1/2 instead of 1/4, four times the pixels, the same output.
        let lost = RegressionCheck().run(
            records: [MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 270_000, decodedPixels: 3_048_192)],
            against: baseline)
        XCTAssertFalse(lost.passed)
        XCTAssertEqual(lost.regressions.map(\.kind), [.decodedMorePixels])
        XCTAssertEqual(lost.regressions[0].description,
                       "j: the thumbnail path decoded 3,048,192 pixels from the same source bytes, the baseline 762,048 (4.00x): a shrink-on-load step lost, or a fall-back to a larger decode")
        let oneMore = RegressionCheck().run(
            records: [MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 270_000, decodedPixels: 762_049)],
            against: baseline)
        XCTAssertEqual(oneMore.regressions.map(\.kind), [.decodedMorePixels], "exact: one pixel more is more work")
        let fewer = RegressionCheck().run(
            records: [MetricsFixtures.record(url: "j", naive: 1, renderer: 1, thumbnail: 270_000, decodedPixels: 190_512)],
            against: baseline)
        XCTAssertTrue(fewer.passed, fewer.lines().joined(separator: "\n"))
    }

    func testUncountedPixelsAndOtherDecodersAreRefusedNeverCalledARegression() throws {
        var counted = MetricsFixtures.record(url: "k", naive: 1, renderer: 1, thumbnail: 270_000)
        counted.decoders = "libvips 8.14.1, libjpeg-turbo 2.1.5, libpng 1.6.39, libwebp 1.2.4"
        let baseline = MetricsBaseline(records: [counted])
        XCTAssertEqual(baseline.decoders, counted.decoders)
        XCTAssertEqual(baseline.build, "debug")

        var otherDecoders = counted
        otherDecoders.decoders = "libvips 8.18.0, libjpeg-turbo 3.0.4, libpng 1.6.43, libwebp 1.4.0"
        otherDecoders.strategies.thumbnail?.decodedPixels = 3_048_192
        let other = RegressionCheck().run(records: [otherDecoders], against: baseline)
        XCTAssertEqual(other.shortfalls.map(\.kind), [.decodersDiffer])
        XCTAssertTrue(other.shortfalls[0].detail.hasPrefix("the metrics were measured with libvips 8.18.0"), other.shortfalls[0].detail)

        var older = counted
        older.strategies.thumbnail?.decodedPixels = nil
        let uncounted = RegressionCheck().run(records: [older], against: baseline)
        XCTAssertEqual(uncounted.regressions, [])
        XCTAssertEqual(uncounted.shortfalls.map(\.kind), [.pixelsNotCounted])
        XCTAssertFalse(uncounted.passed, "a comparison of nothing is no pass")

        var versionTwo = try XCTUnwrap(JSONSerialization.jsonObject(with: baseline.encoded()) as? [String: Any])
        versionTwo["version"] = 2
        versionTwo["images"] = (versionTwo["images"] as? [[String: Any]])?.map { image in image.filter { $0.key != "decodedPixels" } }
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v2.json").path
        try JSONSerialization.data(withJSONObject: versionTwo).write(to: URL(fileURLWithPath: path))
        let fromVersionTwo = RegressionCheck().run(records: [counted], against: try MetricsBaseline.read(path: path))
        XCTAssertEqual(fromVersionTwo.shortfalls.map(\.detail),
                       ["the decoded pixels of 1 compared images could not be compared: the baseline is version 2, which counts no decoded pixels: write a new one with this warm (--update-baseline)"])
    }

    func testAcrossBuildsCPUTimeIsNotComparedAndWithinOneItOnlyWarns() {
        let baseline = MetricsBaseline(records: (0..<12).map { MetricsFixtures.record(url: "c\($0)", naive: 1, renderer: 1, thumbnail: 270_000) })
        func run(build: String, slowerFirst: Int) -> [ImageMetricsRecord] {
            (0..<12).map { index in
                var record = MetricsFixtures.record(url: "c\(index)", naive: 1, renderer: 1, thumbnail: 270_000)
                record.build = build
                if index < slowerFirst { record.strategies.thumbnail?.cpuSeconds = 0.05 }
                return record
            }
        }
        let release = RegressionCheck().run(records: run(build: "release", slowerFirst: 4), against: baseline)
        XCTAssertTrue(release.passed, release.lines().joined(separator: "\n"))
        XCTAssertFalse(release.catalogFigures.contains { $0.name.contains("CPU") })
        XCTAssertTrue(release.notes.contains("the baseline comes from a debug build, the metrics from a release build: CPU time was not compared (decoded pixels are the same from either build)"),
                      "\(release.notes)")
        let debug = RegressionCheck().run(records: run(build: "debug", slowerFirst: 4), against: baseline)
        XCTAssertTrue(debug.passed, "CPU time is advisory")
        XCTAssertEqual(debug.warnings.map(\.detail),
                       ["p90 over median of the per-image ratio thumbnail CPU time now/baseline is 5.000 over 12 images, above the limit 1.250"])
    }

    func testUnmeasuredImagesAreComparedByTheirCountedPixelsAndSizesWithoutPeaks() {
        // The baseline measured both images; this run measured only "m" and
        // warmed "u" outside its sample (no peak, no SSIM, the warm's own pixel count).
        let baseline = MetricsBaseline(records: [
            MetricsFixtures.record(url: "m", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
            MetricsFixtures.record(url: "u", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
        ])
        let run = [MetricsFixtures.record(url: "m", naive: 48_771_072, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
                   MetricsFixtures.unmeasured(url: "u")]
        let outcome = RegressionCheck().run(records: run, against: baseline)
        XCTAssertTrue(outcome.passed, outcome.lines().joined(separator: "\n"))
        XCTAssertEqual(outcome.comparedImages, 2)
        XCTAssertEqual(outcome.count(.missing), 0)
        let lost = RegressionCheck().run(records: [run[0], MetricsFixtures.unmeasured(url: "u", decodedPixels: 3_048_192)],
                                         against: baseline)
        XCTAssertEqual(lost.regressions.map(\.kind), [.decodedMorePixels], "a sampled run still counts every image's pixels")

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
        XCTAssertEqual(Set(object.keys), ["version", "targetLongestSide", "peakMethod", "build", "images"])
        XCTAssertEqual(object["version"] as? Int, 3)
        XCTAssertEqual(object["targetLongestSide"] as? Int, 300)
        let images = try XCTUnwrap(object["images"] as? [[String: Any]])
        XCTAssertEqual(images.map { $0["url"] as? String }, ["https://example.test/a", "https://example.test/m", "https://example.test/z"])
        XCTAssertEqual(Set(images[0].keys), ["url", "sourceSHA256", "decoded", "retainedBytes", "peakBytes", "outputWidth", "outputHeight",
                                             "ssim", "cpuSeconds", "decodedPixels"])
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
