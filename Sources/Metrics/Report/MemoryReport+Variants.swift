import Downsample
import WarmSupport

/// The "which format" section: present only when the run wrote variants in two formats or more.
extension MemoryReport {
    var variantSection: ReportDocument.Section? {
        guard let v = comparison.variants else { return nil }
        let sizes = v.sizes.map { "\($0) px" }.joined(separator: ", ")
        let limit = ReportFormat.megabytes(comparison.cacheLimitBytes)
        let thumbnail = comparison.column(.thumbnail)
        return ReportDocument.Section(title: "Which format: bytes, encode CPU and decoded memory per variant (N = \(ReportFormat.count(v.imageCount)))", blocks: [
            .paragraph("\(ReportFormat.count(v.imageCount)) images carry the variants the run wrote: \(v.formats.joined(separator: ", ")) at \(sizes). Bytes are the cached files' sizes (what an app downloads; 1 KB = 1,000 bytes); encode CPU is the process CPU of that variant's encode: for WebP, AVIF and PNG the encode alone (the decode and resize they share are not in it), for JPEG the direct libjpeg path's own scaled decode, resize and encode. \"SSIM p50\" is the median over the measured images (`--compare`) of each variant's SSIM against the full-decode reference, as the strategies are scored, at the measured size (\(comparison.targetLongestSides.map { "\($0) px" }.joined(separator: ", "))); \"-\" where none was measured. \(v.sizes.count > 1 ? "The \"all sizes\" rows sum each image's sizes of a format. " : "")\"p50 vs jpeg\" is the median's ratio to JPEG's at the same size."),
            .table(variantBytesTable(v)),
            .chart(.variantBytes(v), caption: "Median bytes per variant, by format and size"),
            .paragraph("Once decoded, a variant takes width x height x 4 bytes whatever its format: the format changes the bytes on the wire, not what an app's memory cache holds. The strict LRU (`CacheSimulation`, limit \(limit)) replays the strategy simulation's scroll down and back up, each variant costing its decoded bytes. Beside the seeds' figures: the seeds fit 1,034 thumbnails in a 100 MB cache; this catalog's thumbnail strategy fits \(ReportFormat.count(thumbnail.imagesFittingInCache)) in \(limit) (cumulative, catalog order) and its strict LRU holds \(ReportFormat.count(thumbnail.cacheSimulation.heldImages))."),
            .table(variantMemoryTable(v)),
        ])
    }

    func variantBytesTable(_ v: VariantStatistics) -> ReportDocument.Table {
        let rows = v.rows.map { row -> [String] in
            let jpeg = v.rows.first { $0.format == OutputFormat.jpeg.rawValue && $0.size == row.size }
            let versusJPEG = jpeg.flatMap { $0.bytesP50 > 0 ? Double(row.bytesP50) / Double($0.bytesP50) : nil }
            return [row.format, sizeLabel(row.size), ReportFormat.count(row.images),
                    ReportFormat.kilobytes(row.bytesP50), ReportFormat.kilobytes(row.bytesP90), ReportFormat.megabytes(row.totalBytes),
                    versusJPEG.map { ReportFormat.number($0, decimals: 2) + "x" } ?? "-",
                    row.ssimP50.map { ReportFormat.number($0, decimals: 4) } ?? "-",
                    ReportFormat.number(row.encodeCPUMillisecondsP50, decimals: 1), ReportFormat.number(row.encodeCPUMillisecondsP90, decimals: 1)]
        }
        return ReportDocument.Table(
            header: ["format", "size", "images", "bytes p50", "bytes p90", "total for the catalog", "p50 vs jpeg",
                     "SSIM p50", "encode CPU p50 (ms)", "encode CPU p90 (ms)"],
            rows: rows, numericColumns: Set(2...9))
    }

    func variantMemoryTable(_ v: VariantStatistics) -> ReportDocument.Table {
        let rows = v.rows.filter { $0.size != nil }.map { row -> [String] in
            [row.format, sizeLabel(row.size), ReportFormat.megabytes(row.decodedBytesP50), ReportFormat.megabytes(row.totalDecodedBytes),
             row.cacheSimulation.map { ReportFormat.count($0.heldImages) } ?? "-",
             ReportFormat.percent(row.cacheSimulation?.hitRate)]
        }
        return ReportDocument.Table(
            header: ["format", "size", "decoded per variant, p50", "decoded, all of the catalog",
                     "held by the strict LRU (\(ReportFormat.megabytes(comparison.cacheLimitBytes)))", "hit rate"],
            rows: rows, numericColumns: Set(2...5))
    }

    private func sizeLabel(_ size: Int?) -> String {
        size.map { "\($0) px" } ?? "all sizes, per image"
    }
}
