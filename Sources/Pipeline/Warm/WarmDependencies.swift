import Cache
import DecodeWorkers
import Downsample
import Fetch
import Foundation
import Logging
import NIOPosix

/// What a run is made of: `WarmPipeline` uses only this. `live(...)` is the composition root; tests where HTTP is
/// not the point hand a fake `Fetching` to `make(...)`.
public struct WarmDependencies: Sendable {
    public let fetcher: any Fetching
    /// nil when nothing checks hosts (a fake fetcher).
    public let hostGate: HostGate?
    public let cache: CacheIO
    public let decoder: any ThumbnailDecoding
    let progress: SummaryRecorder
    let metrics: MetricsRecorder?
    /// Wall-clock time, for prune cutoffs.
    let now: @Sendable () -> Date
    private let release: @Sendable () async -> Void

    public static func make(
        configuration: WarmConfiguration, fetcher: any Fetching, hostGate: HostGate?, cache: CacheIO,
        decoder: any ThumbnailDecoding, logger: Logger, progress display: ProgressDisplay = .automatic,
        now: @escaping @Sendable () -> Date = Date.init, release: @escaping @Sendable () async -> Void = {}
    ) throws(WarmRunError) -> WarmDependencies {
        let reporter = display == .logLines ? ProgressReporter(logger: logger, interactive: false) : ProgressReporter(logger: logger)
        let progress = SummaryRecorder(summary: WarmSummary(configuration), progress: reporter,
                                       measureShare: configuration.measures ? configuration.compare.share : nil)
        var metrics: MetricsRecorder?
        if configuration.measures, let path = configuration.metricsPath {
            do {
                metrics = try MetricsRecorder(path: path, configuration: configuration,
                                              onMeasured: { await progress.measuredOne() })
            } catch {
                throw .output(reason: "\(error)")
            }
        }
        return WarmDependencies(fetcher: fetcher, hostGate: hostGate, cache: cache, decoder: decoder, progress: progress,
                                metrics: metrics, now: now, release: release)
    }

    /// The composition root of `warm run` and `warm demo`. The run owns all it builds, `decoder` included (nil: threads
    /// of this process): `close()` shuts it down.
    public static func live(configuration: WarmConfiguration, fetch: FetchConfiguration, decoder: (any ThumbnailDecoding)?,
                            logger: Logger, progress display: ProgressDisplay = .automatic) async throws(WarmRunError) -> WarmDependencies {
        // Before the run's threads allocate (a thread keeps its arena): with glibc's defaults freed image buffers stay
        // in per-thread arenas and the peak grows with the run (bench/findings.md section 2).
        ProcessAllocator.fixMmapThreshold(bytes: 256 * 1024)
        ProcessAllocator.limitArenas(to: 2)
        let (lock, cache, repair) = try openCache(configuration, logger: logger)
        // Enough that a slow fsync does not hold up other stores, few enough to keep the disk's queue short.
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        // Images only from the API's host, page 1's hosts (public addresses) and --allow-host: a product record
        // cannot point the job at internal services.
        let hostGate = HostGate(policy: HostPolicy(
            explicit: [HostPattern(url: configuration.apiURL)].compactMap { $0 } + configuration.allowedHosts))
        let http = HTTPFetcher(configuration: fetch, hostGate: hostGate, logger: logger)
        let decoder = decoder ?? InProcessDecoder(concurrency: configuration.decodeConcurrency)
        let release: @Sendable () async -> Void = {
            await decoder.shutdown()
            try? await http.shutdown()
            try? await pool.shutdownGracefully()
            try? cache.close()
            lock.release()
        }
        do {
            let fetcher = CoalescingFetcher(upstream: http)
            let dependencies = try make(configuration: configuration, fetcher: fetcher, hostGate: hostGate,
                                        cache: CacheIO(cache: cache, pool: pool), decoder: decoder, logger: logger,
                                        progress: display, release: release)
            if let repair {
                await dependencies.progress.update {
                    $0.manifestRebuilt = true
                    $0.manifestBrokenReason = repair.reason
                    $0.manifestMovedTo = repair.movedTo
                }
            }
            return dependencies
        } catch {
            await release()
            throw error
        }
    }

    /// Call once, after `WarmPipeline.run`.
    public func close() async {
        await release()
    }

    private static func openCache(_ configuration: WarmConfiguration,
                                  logger: Logger) throws(WarmRunError) -> (CacheLock, DiskCache, ManifestRepair?) {
        let lock: CacheLock
        do {
            lock = try CacheLock.acquire(root: configuration.cacheDirectory, shard: configuration.shard)
        } catch {
            if case .locked(let path, let pid) = error { throw .locked(path: path, holderPID: pid) }
            throw .cache(error)
        }
        do {
            let (cache, repair) = try DiskCache.openRepairing(
                root: configuration.cacheDirectory, shard: configuration.shard,
                maxAgeSeconds: configuration.maxAgeSeconds,
                logger: logger, faults: configuration.cacheFaults)
            return (lock, cache, repair)
        } catch {
            lock.release()
            throw .cache(error)
        }
    }
}
