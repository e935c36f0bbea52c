import AsyncAlgorithms
import Cache
import Crawl
import DecodeWorkers
import Downsample
import Fetch
import Foundation
import Logging

/// The main job: crawl every product page, fetch every distinct thumbnail,
/// downsample it at decode and write it into the disk cache.
///
/// Stages run concurrently with back-pressure: the crawler hands products to
/// an `AsyncChannel` whose `send` suspends until a fetch worker takes the job,
/// so the crawler never runs ahead of the workers by more than the pages in
/// flight. `fetchConcurrency` workers download; at most `decodeConcurrency` of
/// them decode at once. Memory grows with those two numbers (one source image
/// and its thumbnails per worker), not with the catalog: the only per-product
/// state is the dedup table of URLs.
public struct WarmPipeline: Sendable {
    public let configuration: WarmConfiguration
    public let fetchConfiguration: FetchConfiguration
    /// The decode stage; nil: threads of this process, `decodeConcurrency` of them.
    private let decoder: (any ThumbnailDecoding)?
    private let logger: Logger

    /// With `configuration.compare` other than `.none` and a `metricsPath`, the
    /// selected images are also measured with all three strategies. The
    /// caller owns a `decoder` it hands in (and shuts it down after the run).
    public init(configuration: WarmConfiguration, fetchConfiguration: FetchConfiguration = FetchConfiguration(),
                decoder: (any ThumbnailDecoding)? = nil, logger: Logger = Logger(label: "warm")) {
        self.configuration = configuration
        self.fetchConfiguration = fetchConfiguration
        self.decoder = decoder
        self.logger = logger
    }

    /// Runs once. Throws `WarmRunError` when the run cannot start or go on
    /// (cache locked or unusable, API unreachable); failures of single images
    /// and pages are in the summary instead.
    public func run(interactiveProgress: Bool? = nil) async throws(WarmRunError) -> WarmSummary {
        let started = Date()
        let clock = ContinuousClock.now
        let lock: CacheLock
        do {
            lock = try CacheLock.acquire(root: configuration.cacheDirectory, shard: configuration.shard)
        } catch {
            if case .locked(let path, let pid) = error { throw .locked(path: path, holderPID: pid) }
            throw .cache(error)
        }
        defer { lock.release() }
        let cache: DiskCache
        do {
            cache = try DiskCache.open(root: configuration.cacheDirectory, shard: configuration.shard, configuration: CacheConfiguration(
                maxBytes: configuration.maxCacheBytes, maxAgeSeconds: configuration.maxAgeSeconds), logger: logger,
                faults: configuration.cacheFaults)
        } catch {
            throw .cache(error)
        }
        defer { try? cache.close() }

        // Images only from the API's host, hosts its first page names (public
        // addresses only) and --allow-host: a product record cannot point the job at internal services.
        let hostGate = HostGate(policy: HostPolicy(
            explicit: [HostPattern(url: configuration.apiURL)].compactMap { $0 } + configuration.allowedHosts))
        let http = HTTPFetcher(configuration: fetchConfiguration, hostGate: hostGate, logger: logger)
        let fetcher = CoalescingFetcher(upstream: http)
        let progress = interactiveProgress.map { ProgressReporter(logger: logger, interactive: $0) } ?? ProgressReporter(logger: logger)
        var initial = WarmSummary()
        initial.startedAt = started
        initial.api = configuration.apiURL.absoluteString
        initial.cacheDirectory = configuration.cacheDirectory
        initial.sizes = configuration.sizes
        initial.shard = configuration.shard?.description
        let measureShare: Double? = configuration.metricsPath == nil ? nil : configuration.compare.share
        let recorder = SummaryRecorder(summary: initial, progress: progress, measureShare: measureShare)
        let dedup = URLDeduplicator()
        var metrics: MetricsRecorder?
        if configuration.compare != .none, let path = configuration.metricsPath {
            do {
                metrics = try MetricsRecorder(path: path, configuration: configuration,
                                              onMeasured: { await recorder.measuredOne() })
            } catch {
                throw .output(reason: "\(error)")
            }
        }
        let ownDecoder = decoder == nil ? InProcessDecoder(concurrency: configuration.decodeConcurrency) : nil
        let warmer = ImageWarmer(
            configuration: configuration, cache: cache, fetcher: fetcher,
            decoder: decoder ?? ownDecoder!, metrics: metrics)
        var crawler = Crawler(
            configuration: CrawlConfiguration(apiBaseURL: configuration.apiURL, itemsPerPage: configuration.itemsPerPage,
                                              pageConcurrency: configuration.pageConcurrency),
            fetcher: fetcher, logger: logger)
        crawler.onPage = { report in await recorder.crawlProgressed(report) }
        // A quiet stretch (one slow image, a long measurement) still gets its log line.
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await recorder.showProgress()
            }
        }

        let stopped = await Self.runStages(crawler: crawler, warmer: warmer, dedup: dedup, recorder: recorder,
                                           hostGate: hostGate, fetchConcurrency: configuration.fetchConcurrency,
                                           shard: configuration.shard,
                                           compare: configuration.metricsPath == nil ? .none : configuration.compare)
        if let reason = stopped.stopReason {
            await recorder.stop(reason)
            logger.error("stopping early: \(reason)")
        }
        let crawlError = stopped.crawlError
        await ownDecoder?.shutdown()
        try? await http.shutdown()
        if let metrics {
            // Measuring may lag behind the warm: its own progress line goes on until it is done.
            do {
                try await metrics.finish()
            } catch {
                await recorder.stop("the metrics files could not be written: \(error)")
            }
        }
        ticker.cancel()
        await recorder.showProgress()
        progress.finish()

        // Products seen after their shared thumbnail was stored are added now.
        for (url, productIds) in await dedup.shared() where Self.owns(url, shard: configuration.shard) {
            _ = try? cache.addProductIds(url: url, productIds: productIds)
        }
        let sharing = await dedup.shared().reduce(0) { $0 + $1.productIds.count }
        let pruning = CachePruning(cache: cache, runStartedAt: started.timeIntervalSince1970,
                                   pruneAfterSeconds: configuration.pruneAfterSeconds, logger: logger)
        let stoppedEarly = await recorder.summary.stoppedEarly
        let listIncomplete = Task.isCancelled ? "the run was cancelled"
            : stopped.listIncompleteReason ?? (stoppedEarly ? "the run stopped early" : nil)
        let listedURLs = await dedup.allURLs().filter { Self.owns($0, shard: configuration.shard) }
        let pruned = pruning.run(listedURLs: listedURLs, listIncompleteReason: listIncomplete)
        await recorder.update {
            $0.prunedEntries = pruned.result.removedCount
            $0.prunedBytes = pruned.result.removedBytes
            $0.pruneSkippedReason = pruned.skippedReason
        }
        if let maxBytes = configuration.maxCacheBytes {
            if let evicted = try? cache.evict(maxBytes: maxBytes) {
                await recorder.update {
                    $0.evictedEntries = evicted.removedCount
                    $0.evictedBytes = evicted.removedBytes
                }
            }
        }
        let finished = Date()
        await recorder.update {
            $0.productsSharingAThumbnail = sharing
            $0.finishedAt = finished
            $0.durationSeconds = (ContinuousClock.now - clock).seconds
            $0.peakResidentBytes = Self.peakResidentBytes()
        }
        let summary = await recorder.summary
        if let crawlError, summary.pagesFetched == 0 {
            throw .crawl(reason: crawlError, summary: summary)
        }
        try writeOutputs(summary)
        return summary
    }

    /// How the concurrent stages ended.
    private struct StageEnd: Sendable {
        /// The crawl could not run at all (page 1 or the API failed).
        var crawlError: String?
        /// A worker stopped the run (disk full).
        var stopReason: String?
        /// Why the crawl did not see the whole list (nil: it did).
        var listIncompleteReason: String?
    }

    /// Crawler and fetch workers, joined by a channel whose `send` suspends
    /// until a worker takes the job (back-pressure).
    private static func runStages(crawler: Crawler, warmer: ImageWarmer, dedup: URLDeduplicator,
                                  recorder: SummaryRecorder, hostGate: HostGate, fetchConcurrency: Int,
                                  shard: CacheShard?, compare: CompareSelection) async -> StageEnd {
        let jobs = AsyncChannel<ImageJob>()
        return await withTaskGroup(of: StageEnd.self) { group in
            group.addTask {
                defer { jobs.finish() }
                do {
                    let report = try await crawler.run { products in
                        // Page 1 is handed over first: its hosts join the allow-list (once).
                        await hostGate.learnFirstPage(products.compactMap(\.thumbnailURL))
                        for product in products {
                            guard let url = product.thumbnailURL else {
                                await recorder.productSetAside()
                                continue
                            }
                            let canonical = (try? CanonicalURL(url.absoluteString).text) ?? url.absoluteString
                            guard await dedup.claim(canonical, productId: product.id) else {
                                await recorder.productSetAside()
                                continue
                            }
                            // Every shard crawls the whole list and keeps only its own images.
                            guard Self.owns(canonical, shard: shard) else {
                                await recorder.productSetAside()
                                await recorder.skippedForOtherShard()
                                continue
                            }
                            await recorder.scheduled(selectedForMeasuring: compare.includes(canonical))
                            await jobs.send(ImageJob(canonicalURL: canonical, fetchURL: url.absoluteString,
                                                     productIds: [product.id]))
                        }
                    }
                    await recorder.crawlFinished(report)
                    return StageEnd(listIncompleteReason: CachePruning.incompleteness(of: report))
                } catch {
                    return StageEnd(crawlError: "\(error)", listIncompleteReason: "the product list could not be crawled")
                }
            }
            for _ in 0..<fetchConcurrency {
                group.addTask {
                    for await job in jobs {
                        do {
                            await recorder.record(try await warmer.warm(job),
                                                  selectedForMeasuring: compare.includes(job.canonicalURL))
                        } catch {
                            return StageEnd(stopReason: "\(error)")
                        }
                    }
                    return StageEnd()
                }
            }
            var end = StageEnd()
            for await result in group {
                end.crawlError = end.crawlError ?? result.crawlError
                end.listIncompleteReason = end.listIncompleteReason ?? result.listIncompleteReason
                if let reason = result.stopReason, end.stopReason == nil {
                    end.stopReason = reason
                    group.cancelAll()
                    jobs.finish()
                }
            }
            // Stopping cancels the crawl; its CancellationError is not a crawl failure.
            if end.stopReason != nil { end.crawlError = nil }
            return end
        }
    }

    /// True when `canonicalURL` is `shard`'s to warm (always without a shard).
    static func owns(_ canonicalURL: String, shard: CacheShard?) -> Bool {
        guard let shard else { return true }
        guard let url = try? CanonicalURL(canonicalURL) else { return shard.index == 0 }
        return shard.owns(url)
    }

    /// VmHWM from /proc/self/status (0 where there is no procfs).
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    private func writeOutputs(_ summary: WarmSummary) throws(WarmRunError) {
        do {
            if let path = configuration.summaryPath {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                try encoder.encode(summary).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
            if let path = configuration.prometheusPath {
                try PrometheusTextfile.write(summary, to: path)
            }
        } catch {
            throw .output(reason: "\(error)")
        }
    }
}

/// Why a run could not start or go on.
public enum WarmRunError: Error, Sendable, CustomStringConvertible {
    case locked(path: String, holderPID: Int32?)
    case cache(CacheError)
    case crawl(reason: String, summary: WarmSummary)
    /// The summary, metrics or Prometheus file could not be written.
    case output(reason: String)

    public var description: String {
        switch self {
        case .locked(let path, let pid):
            return "another warm run holds \(path)" + (pid.map { " (pid \($0))" } ?? "") + "; try again when it has finished"
        case .cache(let error): return "the cache cannot be used: \(error)"
        case .crawl(let reason, _): return "the product list could not be crawled: \(reason)"
        case .output(let reason): return "an output file could not be written: \(reason)"
        }
    }
}
