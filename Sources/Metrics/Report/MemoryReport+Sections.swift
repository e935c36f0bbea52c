import Downsample
import Foundation

/// The report's text and tables, one per section, assembled by `document`.
extension MemoryReport {
    var introText: String {
        let c = comparison
        let sizes = c.targetLongestSides.map { "\($0) px" }.joined(separator: ", ")
        return """
            \(ReportFormat.count(c.imageCount)) images read from \(context.metricsPaths.map { "`\($0)`" }.joined(separator: ", ")); \
            \(ReportFormat.count(c.comparedCount)) decoded by all three strategies\(c.isSampled ? " or, outside the measured sample, by the warm's thumbnail decode" : "") (the tables below cover exactly those), \
            \(ReportFormat.count(c.imageCount - c.comparedCount)) failed. \
            \(c.isSampled ? "Of those, \(ReportFormat.count(c.measuredCount)) were measured (peaks, CPU time, quality); the other \(ReportFormat.count(c.comparedCount - c.measuredCount)) were warmed but not measured, and their retained bytes are computed from the header and the stored thumbnail (see How this was measured). " : "")\
            Target: longest upright side \(sizes.isEmpty ? "-" : sizes). \
            Memory is in decimal megabytes: 1 MB = 1,000,000 bytes (the metrics files keep exact bytes). \
            Generated \(ISO8601DateFormatter().string(from: context.generatedAt)). \(context.provenance.sentence)
            """
    }

    /// The seeds' table, of the thumbnails or (`of`) the carousel's images.
    func seedsTable(of other: MemoryComparison? = nil) -> ReportDocument.Table {
        let limit = ReportFormat.megabytes((other ?? comparison).cacheLimitBytes)
        let names = ["naive (`UIImage(data:)`)", "renderer (`UIGraphicsImageRenderer`)", "thumbnail (ImageIO thumbnail-at-decode)"]
        return strategyTable("", strategyNames: names, of: other, [
            ("Total memory-cache use for all N images (sum of retained bytes)",
             { ReportFormat.megabytes($0.statistics.totalRetainedBytes) }),
            ("Average per image", { ReportFormat.megabytes($0.statistics.averageRetainedBytes) }),
            ("Images that fit in a \(limit) memory cache (cumulative, catalog order)", { ReportFormat.count($0.imagesFittingInCache) }),
            ("Times smaller than naive (naive / strategy)",
             { $0.timesSmallerThanNaive.map { "x" + ReportFormat.number($0, decimals: 1) + " smaller" } ?? "-" }),
            ("Less memory than naive ((naive - strategy) / naive)",
             { $0.reductionFromNaivePercent.map(ReportFormat.reduction) ?? "-" }),
        ])
    }

    /// The seeds' own figures, as they state them.
    static var seedsReference: ReportDocument.Table {
        return ReportDocument.Table(
            header: ["The seeds (iOS app, 1,336 thumbnails, Instruments)", "naive", "renderer", "thumbnail"],
            rows: [
                ["Total memory-cache use", "3,225 MB", "1,526 MB", "129 MB"],
                ["Average per image", "2.41 MB", "1.14 MB", "0.1 MB"],
                ["Images in a 100 MB cache", "41", "87", "1,034"],
            ],
            numericColumns: [1, 2, 3])
    }

    var besideTable: ReportDocument.Table {
        strategyTable("Per image (N = \(ReportFormat.count(comparison.measuredCount))\(comparison.isSampled ? " measured" : ""))", [
            ("Peak transient memory, p50", { ReportFormat.megabytes($0.statistics.peakBytesP50) }),
            ("Peak transient memory, p95", { ReportFormat.megabytes($0.statistics.peakBytesP95) }),
            ("Peak transient memory, max", { ReportFormat.megabytes($0.statistics.peakBytesMax) }),
            ("CPU time, p50 (ms)", { ReportFormat.number($0.statistics.cpuMillisecondsP50, decimals: 1) }),
            ("CPU time, p95 (ms)", { ReportFormat.number($0.statistics.cpuMillisecondsP95, decimals: 1) }),
            ("Images per second (one at a time: N / total wall time)", { ReportFormat.number($0.statistics.imagesPerSecond, decimals: 1) }),
            ("SSIM vs Lanczos3 reference, p5 (worst 5%)", { ReportFormat.number($0.statistics.ssimP5, decimals: 4) }),
            ("SSIM vs Lanczos3 reference, median", { ReportFormat.number($0.statistics.ssimMedian, decimals: 4) }),
            ("PSNR vs Lanczos3 reference, median (dB)", { ReportFormat.number($0.statistics.psnrMedian, decimals: 1) }),
        ])
    }

    /// A table with one column per strategy: each row is a label and how to show that strategy's figure.
    /// `of`: another comparison's columns (the carousel's); default the thumbnails'.
    func strategyTable(_ title: String, strategyNames: [String]? = nil, of other: MemoryComparison? = nil,
                       _ rows: [(String, (MemoryComparison.Column) -> String)]) -> ReportDocument.Table {
        let comparison = other ?? comparison
        return ReportDocument.Table(header: [title] + (strategyNames ?? comparison.columns.map(\.kind.rawValue)),
                                    rows: rows.map { label, figure in [label] + comparison.columns.map(figure) },
                                    numericColumns: [1, 2, 3])
    }

    var formatTable: ReportDocument.Table {
        let formatRows = comparison.formats.flatMap { row in
            row.strategies.map { s in
                [
                    row.format, s.kind.rawValue, ReportFormat.count(row.comparedImages), ReportFormat.count(row.measuredImages),
                    ReportFormat.count(row.failedImages),
                    ReportFormat.megabytes(s.totalRetainedBytes), ReportFormat.megabytes(s.averageRetainedBytes),
                    ReportFormat.megabytes(s.peakBytesP50), ReportFormat.megabytes(s.peakBytesP95), ReportFormat.megabytes(s.peakBytesMax),
                    ReportFormat.number(s.cpuMillisecondsP50, decimals: 1), ReportFormat.number(s.cpuMillisecondsP95, decimals: 1),
                    ReportFormat.number(s.ssimP5, decimals: 4), ReportFormat.number(s.ssimMedian, decimals: 4),
                    ReportFormat.number(s.imagesPerSecond, decimals: 1),
                ]
            }
        }
        return ReportDocument.Table(
            header: ["format", "strategy", "images", "peaks measured", "failed", "total retained", "average retained", "peak p50",
                     "peak p95", "peak max", "CPU p50 (ms)", "CPU p95 (ms)", "SSIM p5", "SSIM median", "images/s"],
            rows: formatRows, numericColumns: Set(2...14))
    }

    var cacheTable: ReportDocument.Table {
        strategyTable("Strict LRU, limit \(ReportFormat.megabytes(comparison.cacheLimitBytes))", [
            ("Images held at the end", { ReportFormat.count($0.cacheSimulation.heldImages) }),
            ("Bytes held at the end", { ReportFormat.megabytes($0.cacheSimulation.heldBytes) }),
            ("Hits / requests", { "\(ReportFormat.count($0.cacheSimulation.hits)) / \(ReportFormat.count($0.cacheSimulation.requests))" }),
            ("Hit rate", { ReportFormat.percent($0.cacheSimulation.hitRate) }),
            ("Images refused (larger than the whole limit)", { ReportFormat.count($0.cacheSimulation.refusedImages) }),
        ])
    }

    var failureBlocks: [ReportDocument.Block] {
        let c = comparison
        var failureBlocks: [ReportDocument.Block] = [.table(ReportDocument.Table(
            header: ["", "images"],
            rows: [["Read", ReportFormat.count(c.imageCount)], ["Decoded by all three strategies", ReportFormat.count(c.comparedCount)],
                   ["Failed (any strategy)", ReportFormat.count(c.imageCount - c.comparedCount)]]
                + c.failuresByReason.map { ["Failed: \($0.reason)", ReportFormat.count($0.count)] },
            numericColumns: [1]))]
        if !c.failureExamples.isEmpty {
            failureBlocks.append(.paragraph("Examples:"))
            failureBlocks.append(.list(c.failureExamples.map { "`\($0.url)`: \($0.error)" }))
        }
        return failureBlocks
    }
}
