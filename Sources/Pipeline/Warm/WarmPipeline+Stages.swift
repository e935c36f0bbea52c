import AsyncAlgorithms
import Cache
import Crawl

struct StageEnd: Sendable {
    /// Disk full.
    var stopReason: String?
    var listIncompleteReason: String?
    /// The product ids naming each URL of the list.
    var listed: [CanonicalURL: [Int]] = [:]

    /// Keeps the first of each.
    mutating func merge(_ other: StageEnd) {
        stopReason = stopReason ?? other.stopReason
        listIncompleteReason = listIncompleteReason ?? other.listIncompleteReason
        listed = listed.isEmpty ? other.listed : listed
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
                                     shard: configuration.shard, compare: measured, cache: dependencies.cache)
        let halt = StopRequest()
        let warmer = ImageWarmer(configuration: configuration, cache: dependencies.cache, fetcher: dependencies.fetcher,
                                 decoder: dependencies.decoder, metrics: metrics, halt: halt)
        var end = await withTaskGroup(of: StageEnd.self) { group in
            stop.onRequest {
                events.finish()
                jobs.finish()
            }
            group.addTask { await crawl(onto: events) }
            group.addTask { StageEnd(listed: await admission.run(from: events, onto: jobs)) }
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

    private func crawl(onto events: AsyncChannel<CrawlEvent>) async -> StageEnd {
        let crawler = Crawler(
            configuration: CrawlConfiguration(apiBaseURL: configuration.apiURL, itemsPerPage: configuration.fetching.itemsPerPage,
                                              pageConcurrency: configuration.fetching.pageConcurrency),
            fetcher: dependencies.fetcher, logger: logger)
        // Its own task, so that a stop request cancels the crawl alone.
        let crawling = Task { try await crawler.run(into: events) }
        stop.onRequest { crawling.cancel() }
        do {
            let report = try await withTaskCancellationHandler { try await crawling.value } onCancel: { crawling.cancel() }
            if let failure = ListFailure(report: report, api: configuration.apiURL) { await progress.listFailed(failure) }
            return StageEnd(listIncompleteReason: StageEnd.incompleteness(of: report))
        } catch {
            // A stop's CancellationError lands here too; `RunOutcome.decide` puts the stop first.
            await progress.listFailed(ListFailure(firstPage: error, api: configuration.apiURL))
            return StageEnd(listIncompleteReason: "the product list could not be crawled")
        }
    }

    /// A `CacheError` it throws (disk full) stops the run.
    private func work(on jobs: AsyncChannel<ImageJob>, with warmer: ImageWarmer) async -> StageEnd {
        for await job in jobs {
            if stop.reason != nil { break }
            do {
                await progress.record(try await warmer.warm(job), selectedForMeasuring: measured.includes(job.canonicalURL))
            } catch {
                // Before the group cancels the other workers, so their cancelled fetches are not failures.
                warmer.halt.request(reason: "\(error)")
                return StageEnd(stopReason: "\(error)")
            }
        }
        return StageEnd()
    }
}
