import AsyncAlgorithms

/// What a crawl hands over, in order, through `Crawler.run(into:)`.
public enum CrawlEvent: Sendable {
    /// The counts so far, after each parsed page (page 1's `totalCount`
    /// first): what a progress display needs to know the size of the job early.
    case progress(CrawlReport)
    /// A page's products not seen before, each with a thumbnail URL (never empty).
    case products([Product])
    /// The crawl's final counts, after its last products (not sent when it throws).
    case finished(CrawlReport)
}

extension Crawler {
    /// Crawls the list onto `events` and finishes it (also when the crawl
    /// throws). Each `send` waits until the consumer takes the event, so the
    /// crawler never runs ahead of its consumer by more than the pages in
    /// flight; the consumer reads a plain sequence and the crawl never calls
    /// back into it.
    public func run(into events: AsyncChannel<CrawlEvent>) async throws -> CrawlReport {
        defer { events.finish() }
        var crawler = self
        crawler.onPage = { await events.send(.progress($0)) }
        let report = try await crawler.run { await events.send(.products($0)) }
        await events.send(.finished(report))
        return report
    }
}
