@testable import Downsample
import Foundation
@testable import WarmSupport
@testable import WarmMetrics
import XCTest

final class MemoryReportTests: XCTestCase {
    /// Four images (naive 48, 30, 20 and 10 MB; renderer 1.2 MB and
    /// thumbnail 0.1 MB each) and one that failed, in this catalog order.
    let records: [ImageMetricsRecord] = [
        MetricsFixtures.record(url: "u1", naive: 48_000_000, renderer: 1_200_000, thumbnail: 100_000),
        MetricsFixtures.record(url: "u2", naive: 30_000_000, renderer: 1_200_000, thumbnail: 100_000),
        MetricsFixtures.failed(url: "broken"),
        MetricsFixtures.record(url: "u3", naive: 20_000_000, renderer: 1_200_000, thumbnail: 100_000, format: .png),
        MetricsFixtures.record(url: "u4", naive: 10_000_000, renderer: 1_200_000, thumbnail: 100_000),
    ]

    func report() -> MemoryReport {
        MemoryReport(records: records, cacheLimitBytes: 100_000_000,
                     context: .init(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0)))
    }

    func testCarouselRecordsGetTheirOwnTableAndLeaveTheThumbnailTablesAsTheyWere() {
        var carousel = MetricsFixtures.record(url: "u1", naive: 48_000_000, renderer: 3_000_000, thumbnail: 3_000_000,
                                              thumbnailSize: PixelSize(width: 1080, height: 810), target: 1080)
        carousel.role = ImageMetricsRecord.carouselRole
        carousel.variants = [VariantMetrics(format: "jpeg", size: 1080, width: 1080, height: 810, bytes: 150_000, encodeCPUSeconds: nil)]
        var thumbnails = records
        thumbnails[0].variants = [VariantMetrics(format: "jpeg", size: 300, width: 300, height: 225, bytes: 10_000, encodeCPUSeconds: nil)]
        let withCarousel = MemoryReport(records: thumbnails + [carousel], cacheLimitBytes: 100_000_000,
                                        context: .init(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0)))
        XCTAssertEqual(withCarousel.comparison.imageCount, 5, "the thumbnail tables are of the thumbnails only")
        XCTAssertEqual(withCarousel.comparison.column(.naive).statistics.totalRetainedBytes, 108_000_000)
        XCTAssertEqual(withCarousel.carouselComparison?.comparedCount, 1)
        let markdown = withCarousel.markdown()
        XCTAssertTrue(markdown.contains("## Detail carousel at 1080 px (N = 1)"), markdown)
        XCTAssertTrue(markdown.contains("| Total memory-cache use for all N images (sum of retained bytes) | 48 MB | 3 MB | 3 MB |"), markdown)
        XCTAssertTrue(markdown.contains("| carousel images | 1 | 1 | 0.150 MB | 3.50 MB |"), markdown)
        XCTAssertTrue(withCarousel.summary.contains("carousel: 1 of 1 at 1080 px"), withCarousel.summary)
        XCTAssertFalse(report().markdown().contains("Detail carousel"), "no carousel records, no carousel section")
        XCTAssertEqual(ShardedRecords.inCatalogOrder(thumbnails + [carousel]).count, 6, "one image, two roles: two records")
    }

    func testReportTableMatchesHandComputedTotals() {
        let comparison = report().comparison
        XCTAssertEqual(comparison.imageCount, 5)
        XCTAssertEqual(comparison.comparedCount, 4)
        XCTAssertEqual(comparison.failuresByReason.map(\.reason), ["corrupt"])
        XCTAssertEqual(comparison.failuresByReason.map(\.count), [1])

        let naive = comparison.column(.naive), renderer = comparison.column(.renderer), thumbnail = comparison.column(.thumbnail)
        XCTAssertEqual(naive.statistics.totalRetainedBytes, 108_000_000)
        XCTAssertEqual(renderer.statistics.totalRetainedBytes, 4_800_000)
        XCTAssertEqual(thumbnail.statistics.totalRetainedBytes, 400_000)
        XCTAssertEqual(naive.statistics.averageRetainedBytes, 27_000_000)
        // 48 + 30 + 20 = 98 MB fit; adding 10 MB would pass 100 MB.
        XCTAssertEqual(naive.imagesFittingInCache, 3)
        XCTAssertEqual(renderer.imagesFittingInCache, 4)
        XCTAssertNil(naive.timesSmallerThanNaive)
        XCTAssertEqual(renderer.timesSmallerThanNaive ?? 0, 22.5, accuracy: 1e-9)
        XCTAssertEqual(thumbnail.timesSmallerThanNaive ?? 0, 270, accuracy: 1e-9)
        XCTAssertEqual(renderer.reductionFromNaivePercent ?? 0, (108 - 4.8) / 108 * 100, accuracy: 1e-9)
        XCTAssertEqual(thumbnail.reductionFromNaivePercent ?? 0, (108 - 0.4) / 108 * 100, accuracy: 1e-9)
        // Down: 48, 30, 20 cached, 10 evicts 48. Up: 10, 20, 30 hit; 48 misses and evicts 10.
        XCTAssertEqual(naive.cacheSimulation.hits, 3)
        XCTAssertEqual(naive.cacheSimulation.requests, 8)
        XCTAssertEqual(naive.cacheSimulation.heldImages, 3)
        XCTAssertEqual(naive.cacheSimulation.heldBytes, 98_000_000)
        XCTAssertEqual(thumbnail.cacheSimulation.hits, 4)

        let markdown = report().markdown()
        for row in [
            "| Total memory-cache use for all N images (sum of retained bytes) | 108 MB | 4.80 MB | 0.400 MB |",
            "| Average per image | 27.00 MB | 1.20 MB | 0.100 MB |",
            "| Images that fit in a 100 MB memory cache (cumulative, catalog order) | 3 | 4 | 4 |",
            "| Times smaller than naive (naive / strategy) | - | x22.5 smaller | x270.0 smaller |",
            "| Less memory than naive ((naive - strategy) / naive) | - | 95.56% less memory | 99.63% less memory |",
            "| Hit rate | 37.5% | 50.0% | 50.0% |",
            "| Failed: corrupt | 1 |",
        ] {
            XCTAssertTrue(markdown.contains(row), "missing row: \(row)")
        }
        XCTAssertTrue(markdown.contains("1 MB = 1,000,000 bytes"))
    }

    func testSampledReportPutsEveryImageInTheCacheTableAndOnlyMeasuredOnesInThePeakFigures() {
        // Two measured images (peaks: naive 2 x naive retained, thumbnail 1 MB and 3 MB), three
        // unmeasured 4032x3024 JPEGs (naive 48,771,072 bytes, renderer and thumbnail 300x225x4 each).
        let sampled = [
            MetricsFixtures.record(url: "m1", naive: 10_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 1_000_000),
            MetricsFixtures.unmeasured(url: "u1"),
            MetricsFixtures.unmeasured(url: "u2"),
            MetricsFixtures.record(url: "m2", naive: 20_000_000, renderer: 270_000, thumbnail: 270_000, thumbnailPeak: 3_000_000),
            MetricsFixtures.unmeasured(url: "u3"),
        ]
        let report = MemoryReport(records: sampled, cacheLimitBytes: 100_000_000,
                                  context: .init(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0)))
        let comparison = report.comparison
        XCTAssertEqual(comparison.comparedCount, 5, "unmeasured images are compared on retained bytes, not failures")
        XCTAssertEqual(comparison.measuredCount, 2)
        XCTAssertTrue(comparison.failuresByReason.isEmpty)

        let naive = comparison.column(.naive), thumbnail = comparison.column(.thumbnail)
        XCTAssertEqual(naive.statistics.totalRetainedBytes, 30_000_000 + 3 * 4032 * 3024 * 4)
        XCTAssertEqual(thumbnail.statistics.totalRetainedBytes, 5 * 300 * 225 * 4)
        XCTAssertEqual(naive.statistics.averageRetainedBytes, Double(30_000_000 + 3 * 4032 * 3024 * 4) / 5, "over all five")
        // 10 + 48.77 = 58.77 MB fit; the next 48.77 MB would pass 100 MB.
        XCTAssertEqual(naive.imagesFittingInCache, 2)
        XCTAssertEqual(thumbnail.imagesFittingInCache, 5)
        XCTAssertEqual(naive.cacheSimulation.requests, 10, "the LRU simulation replays every image")

        XCTAssertEqual(naive.statistics.peakBytesP50, 20_000_000, "the lower of the two measured peaks")
        XCTAssertEqual(naive.statistics.peakBytesMax, 40_000_000, "naive peaks only from the measured images")
        XCTAssertEqual(thumbnail.statistics.peakBytesP50, 1_000_000)
        XCTAssertEqual(thumbnail.statistics.peakBytesMax, 3_000_000)
        XCTAssertEqual(thumbnail.statistics.imagesPerSecond ?? 0, 2 / 0.04, accuracy: 1e-9, "throughput over the timed images")
        XCTAssertEqual(PeakComparison(records: sampled).renderer.images, 2)
        XCTAssertEqual(comparison.formats.map(\.comparedImages), [5])
        XCTAssertEqual(comparison.formats.map(\.measuredImages), [2])

        let markdown = report.markdown()
        XCTAssertTrue(markdown.contains("Memory-cache use for the catalog (N = 5)"), markdown)
        XCTAssertTrue(markdown.contains("| Per image (N = 2 measured) |"), markdown)
        XCTAssertTrue(markdown.contains("Sample: peaks measured for 2 of 5 images, about one in 2"), markdown)
        XCTAssertTrue(markdown.contains("naive's measured retained bytes equal width x height x 4 on 0 of 2"),
                      "the fixtures' measured naive bytes are not 4032 x 3024 x 4")
        XCTAssertTrue(report.html().contains("Sample: peaks measured for 2 of 5 images"))
        XCTAssertFalse(self.report().markdown().contains("Sample: peaks measured"), "a fully measured report states no sample")
    }

    func testFormatBreakdownSplitsTheSameImages() {
        let formats = report().comparison.formats
        XCTAssertEqual(formats.map(\.format), ["jpeg", "png"])
        XCTAssertEqual(formats.map(\.comparedImages), [3, 1])
        XCTAssertEqual(formats.map(\.failedImages), [1, 0])
        XCTAssertEqual(formats[1].strategies.first { $0.kind == .naive }?.totalRetainedBytes, 20_000_000)
    }

    func testPercentilesAreNearestRankValues() {
        let metrics = (1...20).map { i in
            ImageMetricsRecord.StrategyMetrics(retainedBytes: i, peakBytes: i * 1_000, cpuSeconds: Double(i) / 1_000,
                                               wallSeconds: 0.5, outputWidth: 1, outputHeight: 1, ssim: Double(i) / 20)
        }
        let statistics = StrategyStatistics(kind: .thumbnail, metrics: metrics.shuffled())
        XCTAssertEqual(statistics.peakBytesP50, 10_000)
        XCTAssertEqual(statistics.peakBytesP95, 19_000)
        XCTAssertEqual(statistics.peakBytesMax, 20_000)
        XCTAssertEqual(statistics.ssimP5, 0.05)
        XCTAssertEqual(statistics.cpuMillisecondsP50 ?? 0, 10, accuracy: 1e-9)
        XCTAssertEqual(statistics.imagesPerSecond ?? 0, 2, accuracy: 1e-9)
    }

    func testHTMLReportIsSelfContainedAndHoldsTheSameTables() throws {
        let html = report().html()
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 3, "three charts")
        for forbidden in ["<script", "src=\"http", "href=\"http", "@import", "url("] {
            XCTAssertFalse(html.contains(forbidden), "external or active content: \(forbidden)")
        }
        for cell in ["108 MB", "x270.0 smaller", "99.63% less memory", "37.5%"] {
            XCTAssertTrue(html.contains(cell), "missing \(cell)")
        }

        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try report().write(to: directory.path)
        XCTAssertEqual(written.map { URL(fileURLWithPath: $0).lastPathComponent }, ["memory-comparison.md", "memory-comparison.html"])
    }

    func testPeakComparisonCountsRendererShortfallsAndThumbnailWinsImageByImage() {
        var lower = MetricsFixtures.record(url: "a", naive: 48_000_000, renderer: 270_000, thumbnail: 270_000)
        lower.strategies.renderer?.peakBytes = 96_000_000 - 900_000   // naive's peak is naive * 2 = 96 MB
        let equal = MetricsFixtures.record(url: "b", naive: 48_000_000, renderer: 270_000, thumbnail: 270_000)
        var higher = MetricsFixtures.record(url: "c", naive: 10_000_000, renderer: 270_000, thumbnail: 270_000,
                                            thumbnailPeak: 25_000_000)
        higher.strategies.renderer?.peakBytes = 20_000_000 + 300_000
        var small = MetricsFixtures.record(url: "d", naive: 1_000_000, renderer: 270_000, thumbnail: 270_000)
        (small.width, small.height) = (1000, 750)  // not larger than 4x the 300 px target: not among the large JPEGs
        let comparison = PeakComparison(records: [lower, equal, higher, small, MetricsFixtures.failed(url: "e")])
        XCTAssertEqual(comparison.renderer.images, 4)
        XCTAssertEqual(comparison.renderer.atLeastNaive, 3)
        XCTAssertEqual(comparison.renderer.atLeastNaiveWithinNoise, 3, "900 KB short is more than the stated noise")
        var close = lower
        close.strategies.renderer?.peakBytes = 96_000_000 - PeakComparison.noiseBytes
        XCTAssertEqual(PeakComparison(records: [close]).renderer.atLeastNaiveWithinNoise, 1, "a shortfall within the noise passes")
        XCTAssertEqual(comparison.renderer.largestShortfallBytes, 900_000)
        XCTAssertEqual(comparison.renderer.largestShortfallFraction, 900_000 / 96_000_000, accuracy: 1e-12)
        XCTAssertEqual(comparison.thumbnail.images, 3)
        XCTAssertEqual(comparison.thumbnail.belowNaive, 2, "c's thumbnail peak (25 MB) is above its naive peak (20 MB)")
        XCTAssertEqual(comparison.thumbnail.smallestRatio ?? 0, 0.8, accuracy: 1e-9)
        let report = MemoryReport(records: [lower, equal], cacheLimitBytes: 100_000_000,
                                  context: .init(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0)))
        XCTAssertTrue(report.markdown().contains("renderer's peak is at least naive's on 1 of 2 images"), report.markdown())
    }

    func testMethodSectionDescribesForkedChildrenAndStillReadsOlderMethods() throws {
        var forked = MetricsFixtures.record(url: "a", naive: 48_000_000, renderer: 270_000, thumbnail: 270_000)
        forked.peakMethod = .forkedProcess
        let context = MemoryReport.Context(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0))
        let forkedText = MemoryReport(records: [forked], cacheLimitBytes: 100_000_000, context: context).markdown()
        XCTAssertTrue(forkedText.contains("forked from a measuring process"), forkedText)
        XCTAssertTrue(forkedText.contains(PeakComparison.noiseText), forkedText)
        XCTAssertFalse(forkedText.contains("older version"), forkedText)

        // A record as an older version wrote it, read back from a metrics file.
        var old = MetricsFixtures.record(url: "b", naive: 48_000_000, renderer: 270_000, thumbnail: 270_000)
        old.peakMethod = .residentHighWaterMark
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("old-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let line = String(decoding: try JSONLines.line(old), as: UTF8.self)
        XCTAssertTrue(line.contains("\"peakMethod\":\"vmhwm\""), line)
        try line.write(toFile: file, atomically: true, encoding: .utf8)
        let read = try JSONLinesReader.read(path: file)
        XCTAssertEqual(read.first?.peakMethod, .residentHighWaterMark)
        let mixed = MemoryReport(records: [forked] + read, cacheLimitBytes: 100_000_000, context: context).markdown()
        XCTAssertTrue(mixed.contains("written by an older version"), mixed)
        XCTAssertTrue(mixed.contains("mix peak methods (forked-process, vmhwm)"), mixed)
    }
}
