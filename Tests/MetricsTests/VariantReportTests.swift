@testable import Downsample
import Foundation
@testable import WarmSupport
@testable import WarmMetrics
import XCTest

/// The report's "which format" section, from the variants records carry: its figures are computed here from the
/// records the test makes, and a report over one format or none must not change.
final class VariantReportTests: XCTestCase {
    static let formats = ["jpeg", "webp", "avif"]
    /// 1 MB: three 300 px variants (270,000 bytes decoded each) fit, eleven 150 px ones (67,800 each) all do.
    static let cacheLimitBytes = 1_000_000
    static let context = MemoryReport.Context(metricsPaths: ["run.jsonl"], generatedAt: Date(timeIntervalSince1970: 0))

    /// Eleven decoded images (enough for p90 to be neither the median nor the largest) and one failure, in
    /// catalog order, none carrying variants.
    static let plainRecords: [ImageMetricsRecord] = (1...11).map { image in
        MetricsFixtures.record(url: "u\(image)", naive: 1_000_000 * (image % 4 + 1), renderer: 270_000, thumbnail: 270_000,
                               format: image == 3 ? .png : .jpeg)
    } + [MetricsFixtures.failed(url: "broken")]
    static let decodedImages = 11

    /// `plainRecords`, each decoded image given a 150 px and a 300 px variant in every one of `formats`
    /// (bytes growing unevenly from image to image, WebP and AVIF smaller than JPEG; SSIM at 300 px only); the
    /// failure gets none.
    static func withVariants(_ formats: [String]) -> [ImageMetricsRecord] {
        let factor = ["jpeg": 1.0, "webp": 0.65, "avif": 0.5, "png": 3.0]
        let cpuSeconds = ["jpeg": 0.002, "webp": 0.004, "avif": 0.02, "png": 0.003]
        var image = 0
        return plainRecords.map { record in
            guard record.isComplete else { return record }
            image += 1
            var record = record
            var variants: [VariantMetrics] = []
            for format in formats {
                for (size, width, height) in [(150, 150, 113), (300, 300, 225)] {
                    let jpegBytes = (10_000 + 1_537 * image * image) * size / 300
                    let bytes = Int(Double(jpegBytes) * factor[format]!)
                    let cpu = cpuSeconds[format]! * Double(image * size) / 300
                    var variant = VariantMetrics(format: format, size: size, width: width, height: height,
                                                 bytes: bytes, encodeCPUSeconds: cpu)
                    // Scored at the measured size only (300 here), as a run's measuring stage scores them.
                    if size == 300 { variant.ssim = 0.95 + Double((image * 7 + format.count) % 11) / 250 }
                    variants.append(variant)
                }
            }
            record.variants = variants
            return record
        }
    }

    static func report(_ records: [ImageMetricsRecord]) -> MemoryReport {
        MemoryReport(records: records, cacheLimitBytes: cacheLimitBytes, context: context)
    }

    func testReportStatesBytesCPUAndDecodedMemoryOfEachFormatAndSize() throws {
        let records = Self.withVariants(Self.formats)
        let report = Self.report(records)
        let variants = try XCTUnwrap(report.comparison.variants)
        XCTAssertEqual(variants.formats, Self.formats)
        XCTAssertEqual(variants.sizes, [150, 300])
        XCTAssertEqual(variants.imageCount, Self.decodedImages, "the failed image wrote no variant")
        let markdown = report.markdown(), html = report.html()

        for format in Self.formats {
            for size in [150, 300] {
                let written = records.compactMap { $0.variants?.first { $0.format == format && $0.size == size } }
                let bytes = written.map(\.bytes), cpu = written.compactMap { $0.encodeCPUSeconds.map { $0 * 1000 } }
                let decoded = written.map { $0.width * $0.height * 4 }
                let row = try XCTUnwrap(variants.rows.first { $0.format == format && $0.size == size })
                XCTAssertEqual(row.images, Self.decodedImages)
                XCTAssertEqual(row.bytesP50, nearestRank(bytes, 50))
                XCTAssertEqual(row.bytesP90, nearestRank(bytes, 90))
                XCTAssertEqual(row.totalBytes, bytes.reduce(0, +))
                XCTAssertEqual(row.encodeCPUMillisecondsP50 ?? 0, nearestRank(cpu, 50), accuracy: 1e-9)
                XCTAssertEqual(row.encodeCPUMillisecondsP90 ?? 0, nearestRank(cpu, 90), accuracy: 1e-9)
                XCTAssertEqual(row.decodedBytesP50, nearestRank(decoded, 50))
                XCTAssertEqual(row.totalDecodedBytes, decoded.reduce(0, +))
                // Every variant of a size costs the same here, so a strict LRU holds as many as the limit divides into.
                XCTAssertEqual(row.cacheSimulation?.heldImages, min(Self.decodedImages, Self.cacheLimitBytes / decoded[0]))

                let ssims = written.compactMap(\.ssim)
                XCTAssertEqual(row.ssimP50, ssims.isEmpty ? nil : nearestRank(ssims, 50))
                let ssim = ssims.isEmpty ? "-" : String(format: "%.4f", nearestRank(ssims, 50))
                let jpegMedian = nearestRank(records.compactMap { $0.variants?.first { $0.format == "jpeg" && $0.size == size }?.bytes }, 50)
                let line = "| \(format) | \(size) px | \(Self.decodedImages) | \(kilobytes(nearestRank(bytes, 50))) | \(kilobytes(nearestRank(bytes, 90))) | "
                    + "\(megabytes(bytes.reduce(0, +))) | \(String(format: "%.2f", Double(nearestRank(bytes, 50)) / Double(jpegMedian)))x | "
                    + "\(ssim) | \(String(format: "%.1f", nearestRank(cpu, 50))) | \(String(format: "%.1f", nearestRank(cpu, 90))) |"
                XCTAssertTrue(markdown.contains(line), "missing row: \(line)\n\(markdown)")
                XCTAssertTrue(html.contains(">\(kilobytes(nearestRank(bytes, 50)))</td>"), "HTML lacks \(format) \(size) px's median")
                XCTAssertTrue(html.contains(">\(kilobytes(nearestRank(bytes, 50)))</text>"), "the bar chart lacks \(format) \(size) px's median")
                let memory = "| \(format) | \(size) px | \(megabytes(nearestRank(decoded, 50))) | \(megabytes(decoded.reduce(0, +))) | "
                    + "\(min(Self.decodedImages, Self.cacheLimitBytes / decoded[0])) |"
                XCTAssertTrue(markdown.contains(memory), "missing row: \(memory)")
            }
            // Per image, each image's two sizes summed.
            let perImage = records.compactMap { $0.variants.map { $0.filter { $0.format == format } } }
            let sums = perImage.map { $0.reduce(0) { $0 + $1.bytes } }
            let sum = try XCTUnwrap(variants.rows.first { $0.format == format && $0.size == nil })
            XCTAssertEqual(sum.bytesP50, nearestRank(sums, 50))
            XCTAssertEqual(sum.totalBytes, sums.reduce(0, +))
            XCTAssertEqual(sum.encodeCPUMillisecondsP90 ?? 0,
                           nearestRank(perImage.map { $0.reduce(0) { $0 + ($1.encodeCPUSeconds ?? 0) * 1000 } }, 90), accuracy: 1e-9)
            XCTAssertTrue(markdown.contains("| \(format) | all sizes, per image | \(Self.decodedImages) | \(kilobytes(nearestRank(sums, 50))) |"), markdown)
        }
        XCTAssertTrue(markdown.contains("## Which format: bytes, encode CPU and decoded memory per variant (N = \(Self.decodedImages))"), markdown)
        XCTAssertTrue(markdown.contains("the seeds fit 1,034 thumbnails in a 100 MB cache"), "the seeds' figure beside ours")
        XCTAssertEqual(html.components(separatedBy: "<svg").count - 1, 4, "the three strategy charts and the bar chart")
        XCTAssertTrue(html.contains("aria-label=\"median bytes per variant by format and size\""))
        XCTAssertFalse(html.contains("<script"))
    }

    func testReportOverOneFormatOrNoVariantsIsTheReportAsBefore() throws {
        let plain = Self.report(Self.plainRecords)
        XCTAssertNil(plain.comparison.variants)
        let titles = plain.markdown().split(separator: "\n").filter { $0.hasPrefix("## ") }
        XCTAssertEqual(titles, ["## Summary", "## Memory-cache use for the catalog (N = \(Self.decodedImages))", "## Transient memory, time and quality",
                                "## By format", "## Memory-cache simulation (strict LRU)", "## Images and failures",
                                "## How this was measured"])
        XCTAssertEqual(plain.html().components(separatedBy: "<svg").count - 1, 3)

        let oneFormat = Self.report(Self.withVariants(["jpeg"]))
        XCTAssertNil(oneFormat.comparison.variants, "one format: nothing to choose between")
        XCTAssertEqual(oneFormat.markdown(), plain.markdown())
        XCTAssertEqual(oneFormat.html(), plain.html())
    }

    func testMetricsFileWithoutVariantsGivesTheSameReportAndOneWithThemGivesTheSection() throws {
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func writeAndRead(_ records: [ImageMetricsRecord], _ name: String) throws -> [ImageMetricsRecord] {
            let path = directory.appendingPathComponent(name).path
            try JSONLinesWriter.write(records, to: path)
            return try JSONLinesReader.read(path: path)
        }
        let plainRead = try writeAndRead(Self.plainRecords, "plain.jsonl")
        XCTAssertTrue(plainRead.allSatisfy { $0.variants == nil })
        XCTAssertFalse(try String(contentsOfFile: directory.appendingPathComponent("plain.jsonl").path, encoding: .utf8)
            .contains("\"variants\""), "a record without variants writes no variants key")
        XCTAssertEqual(Self.report(plainRead).markdown(), Self.report(Self.plainRecords).markdown())

        let records = Self.withVariants(Self.formats)
        let read = try writeAndRead(records, "variants.jsonl")
        XCTAssertEqual(read, records)
        XCTAssertEqual(Self.report(read).comparison.variants, Self.report(records).comparison.variants)
        XCTAssertTrue(Self.report(read).markdown().contains("## Which format"))
    }

    // MARK: Expected figures, computed here

    func nearestRank<T: Comparable>(_ values: [T], _ percent: Double) -> T {
        let sorted = values.sorted()
        return sorted[max(1, Int((percent / 100 * Double(sorted.count)).rounded(.up))) - 1]
    }

    /// Decimal kilobytes with one decimal (the figures here stay under 1,000 KB).
    func kilobytes(_ bytes: Int) -> String { String(format: "%.1f KB", Double(bytes) / 1_000) }

    /// Decimal megabytes as the report prints them under 100 MB: three decimals below 1 MB, two above.
    func megabytes(_ bytes: Int) -> String {
        let mb = Double(bytes) / 1_000_000
        return String(format: mb >= 1 ? "%.2f MB" : "%.3f MB", mb)
    }
}
