import Downsample

/// The product detail's carousel (`warm run --detail-images`): the seeds' memory table for the images a detail screen
/// shows full-width, at their own size, and the cache's bytes by kind. Absent without carousel records.
extension MemoryReport {
    var carouselSection: ReportDocument.Section? {
        guard let c = carouselComparison else { return nil }
        let sizes = c.targetLongestSides.map { "\($0) px" }.joined(separator: ", ")
        let naive = c.column(.naive).statistics, thumbnail = c.column(.thumbnail).statistics
        let ratio = thumbnail.totalRetainedBytes > 0 ? Double(naive.totalRetainedBytes) / Double(thumbnail.totalRetainedBytes) : nil
        return ReportDocument.Section(title: "Detail carousel at \(sizes) (N = \(ReportFormat.count(c.comparedCount)))", blocks: [
            .paragraph("The images of the products' detail carousels (`GET /api/products/{id}`, `images[].url`), each decoded for a phone's full-width page: longest upright side \(sizes). These are the largest decodes an app makes. Carousel images: \(ReportFormat.count(c.imageCount)), \(ReportFormat.count(c.comparedCount)) decoded by all three strategies\(c.isSampled ? " (\(ReportFormat.count(c.measuredCount)) measured, the others sized from the header and the stored file, as above)" : ""); an image that is also a list thumbnail is in both tables, each at its own size. Per image, naive keeps \(ReportFormat.megabytes(naive.averageRetainedBytes)) and thumbnail-at-decode \(ReportFormat.megabytes(thumbnail.averageRetainedBytes))\(ratio.map { ": x" + ReportFormat.number($0, decimals: 1) + " smaller" } ?? "")."),
            .table(seedsTable(of: c)),
        ])
    }

    /// What the cache holds for each kind of image, from the records' variants (absent when no record has any).
    var cacheBytesSection: ReportDocument.Section? {
        let kinds = [("list thumbnails", records), ("carousel images", carouselRecords)].filter { !$0.1.isEmpty }
        guard carouselComparison != nil, kinds.allSatisfy({ $0.1.contains { $0.variants != nil } }) else { return nil }
        let rows = kinds.map { name, records -> [String] in
            let variants = records.flatMap { $0.variants ?? [] }
            return [name, ReportFormat.count(records.count), ReportFormat.count(variants.count),
                    ReportFormat.megabytes(variants.reduce(0) { $0 + $1.bytes }),
                    ReportFormat.megabytes(variants.reduce(0) { $0 + $1.width * $1.height * 4 })]
        }
        return ReportDocument.Section(title: "The cache's bytes by kind", blocks: [
            .paragraph("The files the run cached, by where the app shows the image (each kind's sizes in every format); an image that is both counts in each, with its own sizes. Decoded is width x height x 4 of every file: what an app's memory cache would hold to keep them all."),
            .table(ReportDocument.Table(header: ["kind", "images", "files", "bytes on disk", "decoded"], rows: rows,
                                        numericColumns: [1, 2, 3, 4])),
        ])
    }
}
