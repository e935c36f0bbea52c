import AsyncAlgorithms

/// What a crawl hands over, in order, through `Crawler.run(into:)`.
public enum CrawlEvent: Sendable {
    /// The counts so far, after each parsed page (page 1's `totalCount` first, for a progress display).
    case progress(CrawlReport)
    /// A page's products not seen before (never empty), each with a thumbnail URL unless the crawl delivers products
    /// without one (`CrawlConfiguration.deliversProductsWithoutThumbnail`).
    case products([Product])
    /// A source other than the API (a URL list, a sitemap), read whole: its images, each once, with its product.
    case images([ListedImage])
    /// Not sent when the crawl throws.
    case finished(CrawlReport)
}

extension Crawler {
    /// Crawls the list onto `events` and finishes it, also when the crawl throws. Each `send` waits for
    /// the consumer, so the crawler never runs ahead of it by more than the pages in flight.
    public func run(into events: AsyncChannel<CrawlEvent>) async throws -> CrawlReport {
        defer { events.finish() }
        var crawler = self
        crawler.onPage = { await events.send(.progress($0)) }
        let report = try await crawler.run { await events.send(.products($0)) }
        await events.send(.finished(report))
        return report
    }
}
