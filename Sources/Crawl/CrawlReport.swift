import Foundation

/// What a crawl did, for the run summary.
public struct CrawlReport: Sendable, Hashable, CustomStringConvertible {
    /// Re-fetches included.
    public var pagesFetched: Int = 0
    /// Pages whose products are still unaccounted for at the end, with the last reason.
    public var failedPages: [CrawlError] = []
    var recoveredPageFailures: Int = 0
    /// Duplicates included.
    public var productsSeen: Int = 0
    public var uniqueProducts: Int = 0
    var duplicates: Int = 0
    /// Distinct products without a usable thumbnail (not delivered, unless `deliversProductsWithoutThumbnail`).
    public var withoutThumbnail: Int = 0
    /// Products handed over.
    public var delivered: Int = 0
    var rejectedEntries: Int = 0
    var passes: Int = 0
    public var totalCountAtStart: Int = 0
    public var totalCountAtEnd: Int = 0
    /// Products possibly missed (failed pages, or a list still moving after `maxPasses`).
    public var uncoveredPositions: Int = 0
    public var durationSeconds: Double = 0

    init() {}

    /// A source read whole (`ImageListing`): `documents` files read, `entries` image entries (repeats included),
    /// `images` distinct images; each image counts as a product with a thumbnail.
    init(documents: Int, entries: Int, images: Int, durationSeconds: Double) {
        pagesFetched = documents
        passes = 1
        productsSeen = entries
        uniqueProducts = images
        delivered = images
        duplicates = entries - images
        totalCountAtStart = images
        totalCountAtEnd = images
        self.durationSeconds = durationSeconds
    }

    public var description: String {
        var text = "Crawled \(pagesFetched) pages in \(passes) pass\(passes == 1 ? "" : "es") in "
            + String(format: "%.1f s", durationSeconds)
            + ": \(uniqueProducts) products (\(uniqueProducts - withoutThumbnail) with a thumbnail, \(withoutThumbnail) without), "
            + "\(duplicates) duplicates"
        if rejectedEntries > 0 { text += ", \(rejectedEntries) entries without an id" }
        if totalCountAtEnd != totalCountAtStart { text += "; the list went from \(totalCountAtStart) to \(totalCountAtEnd)" }
        if !failedPages.isEmpty { text += "; \(failedPages.count) pages failed" }
        if uncoveredPositions > 0 { text += "; \(uncoveredPositions) list positions never seen" }
        return text + "."
    }
}
