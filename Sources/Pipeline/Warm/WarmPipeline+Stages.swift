import AsyncAlgorithms
import Cache
import Crawl

struct StageEnd: Sendable {
    /// Disk full.
    var stopReason: String?
    var listIncompleteReason: String?
    /// The product ids naming each URL of the list.
    var listed: [CanonicalURL: [Int]] = [:]
    /// Where tonight's product details show each carousel image (`--detail-images`).
    var carousels: [CanonicalURL: [CarouselPlacement]] = [:]

    /// Keeps the first of each.
    mutating func merge(_ other: StageEnd) {
        stopReason = stopReason ?? other.stopReason
        listIncompleteReason = listIncompleteReason ?? other.listIncompleteReason
        listed = listed.isEmpty ? other.listed : listed
        carousels = carousels.isEmpty ? other.carousels : carousels
    }

    static func incompleteness(of report: CrawlReport) -> String? {
        if !report.failedPages.isEmpty { return "\(report.failedPages.count) list pages failed" }
        if report.uncoveredPositions > 0 { return "\(report.uncoveredPositions) list positions were never seen" }
        return nil
    }
}

extension WarmPipeline {
    /// A worker that must stop the run (disk full) cancels the others. A stop request ends the crawl and both
    /// channels: no new image starts, the workers finish the images they hold.
    func runStages() async -> StageEnd {
        let events = AsyncChannel<CrawlEvent>()
        let jobs = AsyncChannel<ImageJob>()
        let admission = JobAdmission(progress: progress, hostGate: dependencies.hostGate,
                                     shard: configuration.shard, compare: measured, cache: dependencies.cache,
                                     details: detailReader, detailLimit: configuration.details.productLimit)
        let halt = StopRequest()
        let warmer = ImageWarmer(configuration: configuration, cache: dependencies.cache, fetcher: dependencies.fetcher,
                                 decoder: dependencies.decoder, metrics: metrics, halt: halt)
        var end = await withTaskGroup(of: StageEnd.self) { group in
            stop.onRequest {
                events.finish()
                jobs.finish()
            }
            group.addTask { await crawl(onto: events) }
            group.addTask { await admission.run(from: events, onto: jobs) }
            for _ in 0..<configuration.fetching.concurrency {
                group.addTask { await work(on: jobs, with: warmer) }
            }
            var end = StageEnd()
            for await result in group {
                if result.stopReason != nil, end.stopReason == nil {
                    group.cancelAll()
                    events.finish()
                    jobs.finish()
                }
                end.merge(result)
            }
            return end
        }
        if let reason = stop.reason {
            end.stopReason = reason
            end.listIncompleteReason = end.listIncompleteReason ?? "the run was asked to stop"
        }
        return end
    }

    /// `--detail-images` on an OpenMarket source: the run's fetcher, so the list's retries, deadlines, allow-list and
    /// body limit apply to each detail.
    private var detailReader: DetailReader? {
        guard configuration.details.enabled, case .openMarket(let api) = configuration.source else { return nil }
        return DetailReader(apiBaseURL: api, fetcher: dependencies.fetcher)
    }

    private func crawl(onto events: AsyncChannel<CrawlEvent>) async -> StageEnd {
        let source = configuration.source
        // Its own task, so that a stop request cancels the crawl alone.
        let crawling = Task { () async throws -> StageEnd in
            switch source {
            case .openMarket(let api):
                let crawler = Crawler(
                    configuration: CrawlConfiguration(apiBaseURL: api, itemsPerPage: configuration.fetching.itemsPerPage,
                                                      pageConcurrency: configuration.fetching.pageConcurrency,
                                                      deliversProductsWithoutThumbnail: configuration.details.enabled),
                    fetcher: dependencies.fetcher, logger: logger)
                let report = try await crawler.run(into: events)
                if let failure = ListFailure(report: report, source: source) { await progress.listFailed(failure) }
                return StageEnd(listIncompleteReason: StageEnd.incompleteness(of: report))
            case .urlList(let path):
                return await hand(try await ImageListing.urlList(path: path), onto: events)
            case .sitemap(let url):
                return await hand(try await ImageListing.sitemap(url, fetcher: dependencies.fetcher), onto: events)
            }
        }
        stop.onRequest { crawling.cancel() }
        do {
            return try await withTaskCancellationHandler { try await crawling.value } onCancel: { crawling.cancel() }
        } catch {
            events.finish()
            // A stop's CancellationError lands here too; `RunOutcome.decide` puts the stop first.
            await progress.listFailed(ListFailure(firstPage: error, source: source))
            return StageEnd(listIncompleteReason: "\(source) could not be read")
        }
    }

    /// A source read whole: its images go to admission; skipped entries make the list incomplete (nothing pruned).
    private func hand(_ listing: ImageListing, onto events: AsyncChannel<CrawlEvent>) async -> StageEnd {
        logger.info("\(listing.summary)")
        await listing.send(into: events)
        guard !listing.problems.isEmpty else { return StageEnd() }
        for problem in listing.problems.kept { logger.warning("\(problem)") }
        await progress.listFailed(ListFailure(problems: listing.problems, source: configuration.source))
        return StageEnd(listIncompleteReason: "\(listing.problems.count) entries of \(configuration.source) were skipped")
    }

    /// A `CacheError` it throws (disk full) stops the run.
    private func work(on jobs: AsyncChannel<ImageJob>, with warmer: ImageWarmer) async -> StageEnd {
        for await job in jobs {
            if stop.reason != nil { break }
            do {
                await progress.record(try await warmer.warm(job), selectedForMeasuring: job.isSelected(by: measured))
            } catch {
                // Before the group cancels the other workers, so their cancelled fetches are not failures.
                warmer.halt.request(reason: "\(error)")
                return StageEnd(stopReason: "\(error)")
            }
        }
        return StageEnd()
    }
}
