import Foundation

/// What a crawl did, for the run summary.
public struct CrawlReport: Sendable, Hashable, CustomStringConvertible {
    /// Page responses that parsed (re-fetches included).
    public var pagesFetched: Int = 0
    /// Pages whose products are still unaccounted for at the end, with the last reason.
    public var failedPages: [PageFailure] = []
    /// Page failures that a later pass made good.
    public var recoveredPageFailures: Int = 0
    /// Products in all parsed pages, duplicates included.
    public var productsSeen: Int = 0
    /// Distinct product ids.
    public var uniqueProducts: Int = 0
    /// Products seen again (on a re-fetched or shifted page).
    public var duplicates: Int = 0
    /// Distinct products with a missing, null, empty or unusable thumbnail (not delivered).
    public var withoutThumbnail: Int = 0
    /// Distinct products handed to the consumer.
    public var delivered: Int = 0
    /// List entries dropped because they had no usable id.
    public var rejectedEntries: Int = 0
    /// Passes over the list (1 when it did not change while crawling).
    public var passes: Int = 0
    /// `totalCount` on the first page, and the last one seen.
    public var totalCountAtStart: Int = 0
    public var totalCountAtEnd: Int = 0
    /// List positions no parsed page covered at the end: products possibly
    /// missed (failed pages, or a list still moving after `maxPasses`).
    public var uncoveredPositions: Int = 0
    public var durationSeconds: Double = 0

    public init() {}

    public var description: String {
        var text = "Crawled \(pagesFetched) pages in \(passes) pass\(passes == 1 ? "" : "es") in "
            + String(format: "%.1f s", durationSeconds)
            + ": \(uniqueProducts) products (\(delivered) with a thumbnail, \(withoutThumbnail) without), "
            + "\(duplicates) duplicates"
        if rejectedEntries > 0 { text += ", \(rejectedEntries) entries without an id" }
        if totalCountAtEnd != totalCountAtStart { text += "; the list went from \(totalCountAtStart) to \(totalCountAtEnd)" }
        if !failedPages.isEmpty { text += "; \(failedPages.count) pages failed" }
        if uncoveredPositions > 0 { text += "; \(uncoveredPositions) list positions never seen" }
        return text + "."
    }
}

/// A page that could not be used, and in which pass.
public struct PageFailure: Sendable, Hashable, CustomStringConvertible {
    public var pageNo: Int
    public var url: URL
    public var error: CrawlError
    public var pass: Int

    public init(pageNo: Int, url: URL, error: CrawlError, pass: Int) {
        self.pageNo = pageNo
        self.url = url
        self.error = error
        self.pass = pass
    }

    public var reasonCode: String { error.reasonCode }
    public var description: String { error.description }
}
