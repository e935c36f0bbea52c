import Fetch
import Foundation
import Logging
import WarmSupport

/// Hands each new product with a thumbnail (or each new product, `deliversProductsWithoutThumbnail`) to `consume` once; a slow consumer bounds the pages in flight. The list
/// grows while crawled, so unseen positions are re-fetched (`ListCoverage`, docs/running-nightly.md).
public struct Crawler: Sendable {
    let configuration: CrawlConfiguration
    private let fetcher: any Fetching
    private let logger: Logger
    /// Called after each parsed page is counted, before its products are handed over.
    var onPage: (@Sendable (CrawlReport) async -> Void)?

    /// Without a `logger`, only warnings (failed pages) are logged.
    public init(configuration: CrawlConfiguration, fetcher: any Fetching, logger: Logger? = nil) {
        self.configuration = configuration
        self.fetcher = fetcher
        self.logger = logger ?? {
            var logger = Logger(label: "warm.crawl")
            logger.logLevel = .warning
            return logger
        }()
    }

    /// Calls `consume` serially, never with an empty batch. Throws `CrawlError` when page 1 cannot be used.
    func run(_ consume: @Sendable ([Product]) async throws -> Void) async throws -> CrawlReport {
        let clock = ContinuousClock()
        let started = clock.now
        var progress = Progress()

        // Pass 1, page 1 alone: it tells how long the list is.
        let first = await fetchPage(1, itemsPerPage: configuration.itemsPerPage)
        let firstPage = try first.outcome.get()
        let pageSize = firstPage.itemsPerPage > 0 ? firstPage.itemsPerPage : configuration.itemsPerPage
        var coverage = ListCoverage(baseCount: firstPage.totalCount, pageSize: pageSize)
        progress.report.totalCountAtStart = firstPage.totalCount
        progress.report.passes = 1
        try await handle(first, pass: 1, progress: &progress, coverage: &coverage, consume: consume)

        let lastPage = ProductPage.lastPage(totalCount: firstPage.totalCount, itemsPerPage: pageSize)
        if lastPage > 1 {
            try await fetchPass(Array(2...lastPage), pass: 1, pageSize: pageSize,
                                progress: &progress, coverage: &coverage, consume: consume)
        }

        // Later passes: re-fetch the pages holding positions nobody has seen.
        var pass = 1
        while pass < configuration.maxPasses, coverage.uncoveredCount > 0 {
            pass += 1
            let pages = coverage.pagesHoldingUncovered()
            let before = (covered: coverage.coveredPositions, domain: coverage.domain)
            logger.info("The list moved or pages failed; fetching again", metadata: [
                "pass": "\(pass)", "pages": "\(pages.count)", "uncovered": "\(coverage.uncoveredCount)",
            ])
            progress.report.passes = pass
            try await fetchPass(pages, pass: pass, pageSize: pageSize,
                                progress: &progress, coverage: &coverage, consume: consume)
            if coverage.coveredPositions == before.covered && coverage.domain == before.domain {
                break // Nothing new is coming from these pages; stop rather than spin.
            }
        }

        progress.finish(coverage: coverage)
        progress.report.durationSeconds = (clock.now - started).inSeconds
        logger.info("\(progress.report.description)")
        return progress.report
    }

    private func fetchPass(_ pages: [Int], pass: Int, pageSize: Int, progress: inout Progress,
                           coverage: inout ListCoverage,
                           consume: @Sendable ([Product]) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: PageResult.self) { group in
            var pending = pages.makeIterator()
            for _ in 0..<configuration.pageConcurrency {
                guard let pageNo = pending.next() else { break }
                group.addTask { await self.fetchPage(pageNo, itemsPerPage: pageSize) }
            }
            while let result = try await group.next() {
                try Task.checkCancellation()
                try await handle(result, pass: pass, progress: &progress, coverage: &coverage, consume: consume)
                if let pageNo = pending.next() {
                    group.addTask { await self.fetchPage(pageNo, itemsPerPage: pageSize) }
                }
            }
        }
    }

    private func handle(_ result: PageResult, pass: Int, progress: inout Progress, coverage: inout ListCoverage,
                        consume: @Sendable ([Product]) async throws -> Void) async throws {
        switch result.outcome {
        case .failure(let error):
            logger.warning("\(error.description)", metadata: ["pass": "\(pass)"])
            progress.failures.append((error, coverage.expectedPositions(pageNo: result.pageNo)))
        case .success(let page):
            let entryCount = page.products.count + page.rejectedProductCount
            let positions = coverage.positions(pageNo: result.pageNo, entryCount: entryCount, totalCount: page.totalCount)
            let (fresh, misplaced) = progress.absorb(page, firstPosition: positions.lowerBound,
                                                     withoutThumbnail: configuration.deliversProductsWithoutThumbnail)
            let repeatsAnother = !misplaced.isEmpty && misplaced.count == page.products.count
            // Positions whose product was seen elsewhere are not covered: their page is fetched again.
            coverage.record(pageNo: result.pageNo, entryCount: entryCount, totalCount: page.totalCount,
                            excluding: repeatsAnother ? Set(positions) : Set(misplaced.keys))
            if repeatsAnother {
                // Every product of the page was seen elsewhere: this page, or the one seen first, does not
                // hold what its number says. Neither counts as seen, and the next fetch of either is believed.
                coverage.uncover(misplaced.values)
                progress.forgetPositions(of: page.products)
                let error = CrawlError.pageRepeatsAnother(pageNo: result.pageNo, url: result.url)
                logger.warning("\(error.description)", metadata: ["pass": "\(pass)"])
                progress.failures.append((error, positions))
            }
            await onPage?(progress.report)
            if !fresh.isEmpty { try await consume(fresh) }
        }
    }

    private func fetchPage(_ pageNo: Int, itemsPerPage: Int) async -> PageResult {
        let url = configuration.pageURL(pageNo: pageNo, itemsPerPage: itemsPerPage)
        let outcome: Result<ProductPage, CrawlError>
        do throws(FetchError) {
            if let resource = try await fetcher.get(url, validators: nil).resource {
                outcome = Result { try ProductPage.decode(from: resource.body) }.mapError {
                    .pageDidNotParse(pageNo: pageNo, url: url, problem: DecodingProblem.describe($0))
                }
            } else {
                outcome = .failure(.pageNotModified(pageNo: pageNo, url: url))
            }
        } catch {
            outcome = .failure(.pageFetchFailed(pageNo: pageNo, url: url, error: error))
        }
        return PageResult(pageNo: pageNo, url: url, outcome: outcome)
    }
}

private struct PageResult: Sendable {
    var pageNo: Int
    var url: URL
    var outcome: Result<ProductPage, CrawlError>
}

private struct Progress {
    var report = CrawlReport()
    var seenIDs = Set<Int>()
    /// Where each product was first seen, in start-list positions (`ListCoverage`).
    var positionByID: [Int: Int] = [:]
    var failures: [(failure: CrawlError, positions: Range<Int>)] = []

    /// Counts a page; returns its new products with a thumbnail (all new ones `withoutThumbnail`), and `misplaced`:
    /// positions whose product was first seen at another position (in a list that grows only at the front, a product
    /// keeps its position).
    mutating func absorb(_ page: ProductPage, firstPosition: Int,
                         withoutThumbnail: Bool) -> (fresh: [Product], misplaced: [Int: Int]) {
        var misplaced: [Int: Int] = [:]
        // Entries without an id leave gaps that make positions uncertain; trust such a page as it is.
        if page.rejectedProductCount == 0 {
            for (index, product) in page.products.enumerated() {
                let position = firstPosition + index
                if let first = positionByID[product.id] {
                    if first != position { misplaced[position] = first }
                } else {
                    positionByID[product.id] = position
                }
            }
        }
        report.pagesFetched += 1
        report.productsSeen += page.products.count
        report.rejectedEntries += page.rejectedProductCount
        report.totalCountAtEnd = page.totalCount
        var fresh: [Product] = []
        for product in page.products {
            guard seenIDs.insert(product.id).inserted else {
                report.duplicates += 1
                continue
            }
            report.uniqueProducts += 1
            if product.thumbnailURL == nil {
                report.withoutThumbnail += 1
                if withoutThumbnail { fresh.append(product) }
            } else {
                fresh.append(product)
            }
        }
        report.delivered += fresh.count
        return (fresh, misplaced)
    }

    mutating func forgetPositions(of products: [Product]) {
        for product in products { positionByID[product.id] = nil }
    }

    /// Keeps the failures whose products are still unaccounted for, the latest per page number.
    mutating func finish(coverage: ListCoverage) {
        report.uncoveredPositions = coverage.uncoveredCount
        var latest: [Int: CrawlError] = [:]
        for (failure, positions) in failures {
            if coverage.isCovered(positions) {
                report.recoveredPageFailures += 1
            } else {
                latest[failure.pageNo] = failure
            }
        }
        report.failedPages = latest.values.sorted { $0.pageNo < $1.pageNo }
    }
}
