import WarmSupport

/// The report's "which format" figures per format and size; nil unless the records name two formats
/// or more (one format has nothing to choose between).
struct VariantStatistics: Sendable, Equatable {
    /// One format at one size, or (`size` nil) each image's sizes of one format summed.
    struct Row: Sendable, Equatable {
        var format: String
        /// The requested longest side; nil for the per-image sum over every size.
        var size: Int?
        /// Images with this variant (for the summed row: with any size of the format).
        var images: Int
        var bytesP50: Int
        var bytesP90: Int
        var totalBytes: Int
        var encodeCPUMillisecondsP50: Double?
        var encodeCPUMillisecondsP90: Double?
        /// Median SSIM of the measured images' variants against the full-decode reference; nil when none was scored.
        var ssimP50: Double?
        /// width x height x 4; nil in the summed row (an app shows one size of an image at a time).
        var decodedBytesP50: Int?
        var totalDecodedBytes: Int?
        /// The strategy table's scroll down and up, each variant costing its decoded bytes; nil in the summed row.
        var cacheSimulation: CacheSimulation.Outcome?
    }

    var imageCount: Int
    /// jpeg, webp, avif, png first in that order, any other after them.
    var formats: [String]
    var sizes: [Int]
    /// By format, then size; each format's summed row follows its sizes when there are several.
    var rows: [Row]

    init?(records: [ImageMetricsRecord], cacheLimitBytes: Int) {
        let carrying = records.filter { !($0.variants ?? []).isEmpty }
        let all = carrying.flatMap { $0.variants ?? [] }
        let known = OutputFormat.allCases.map(\.rawValue)
        let names = Set(all.map(\.format))
        guard names.count >= 2 else { return nil }
        imageCount = carrying.count
        formats = known.filter(names.contains) + names.subtracting(known).sorted()
        sizes = Set(all.map(\.size)).sorted()
        var rows: [Row] = []
        for format in formats {
            for size in sizes {
                // Catalog order, as the strategy simulation replays it.
                let variants = carrying.compactMap { $0.variants?.first { $0.format == format && $0.size == size } }
                guard !variants.isEmpty else { continue }
                var row = Self.row(format: format, size: size, bytes: variants.map(\.bytes),
                                   cpu: variants.compactMap(\.encodeCPUSeconds),
                                   decoded: variants.map(\.decodedBytes), cacheLimitBytes: cacheLimitBytes)
                row.ssimP50 = Percentile.of(variants.compactMap(\.ssim).sorted(), 50)
                rows.append(row)
            }
            if sizes.count > 1 {
                let perImage = carrying.map { ($0.variants ?? []).filter { $0.format == format } }.filter { !$0.isEmpty }
                rows.append(Self.row(format: format, size: nil, bytes: perImage.map { $0.reduce(0) { $0 + $1.bytes } },
                                     cpu: perImage.compactMap { variants in
                                         variants.allSatisfy { $0.encodeCPUSeconds != nil }
                                             ? variants.reduce(0) { $0 + ($1.encodeCPUSeconds ?? 0) } : nil
                                     },
                                     decoded: nil, cacheLimitBytes: cacheLimitBytes))
            }
        }
        self.rows = rows
    }

    /// - Parameter decoded: in catalog order; nil for the summed row.
    private static func row(format: String, size: Int?, bytes: [Int], cpu: [Double], decoded: [Int]?,
                            cacheLimitBytes: Int) -> Row {
        let sortedBytes = bytes.sorted(), sortedCPU = cpu.map { $0 * 1000 }.sorted()
        return Row(format: format, size: size, images: bytes.count,
                   bytesP50: Percentile.of(sortedBytes, 50) ?? 0, bytesP90: Percentile.of(sortedBytes, 90) ?? 0,
                   totalBytes: bytes.reduce(0, +),
                   encodeCPUMillisecondsP50: Percentile.of(sortedCPU, 50), encodeCPUMillisecondsP90: Percentile.of(sortedCPU, 90),
                   decodedBytesP50: decoded.flatMap { Percentile.of($0.sorted(), 50) },
                   totalDecodedBytes: decoded.map { $0.reduce(0, +) },
                   cacheSimulation: decoded.map { CacheSimulation.run(costs: $0, costLimit: cacheLimitBytes) })
    }
}
