import Cache
import Downsample
import Fetch
import Foundation
import Logging
import WarmMetrics
import NIOPosix

/// What a run is made of, opened before it: `WarmPipeline` uses only this. `live(...)` is the composition root; tests
/// where HTTP is not the point hand in a fake `Fetching`.
struct WarmDependencies: Sendable {
    let fetcher: any Fetching
    /// nil when nothing checks hosts (a fake fetcher).
    public let hostGate: HostGate?
    let cache: CacheIO
    public let decoder: any ThumbnailDecoding
    /// Wall-clock time, for prune cutoffs.
    let now: @Sendable () -> Date
    private let release: @Sendable () async -> Void
    /// Set when the manifest was broken and moved aside: the summary says so.
    var manifestRepair: ManifestRepair?
    /// Released right before the summary is written, so a run that filled the disk can still write it.
    var summaryReserve: SpaceReserve?
    /// Where measured strategies run (nil: one process of this executable's, started when first needed).
    var measuringPool: MeasuringPool?
    /// Crash rehearsals and tests only.
    var faults: FaultInjector?

    public init(fetcher: any Fetching, hostGate: HostGate?, cache: CacheIO, decoder: any ThumbnailDecoding,
                now: @escaping @Sendable () -> Date = Date.init, release: @escaping @Sendable () async -> Void = {}) {
        self.fetcher = fetcher
        self.hostGate = hostGate
        self.cache = cache
        self.decoder = decoder
        self.now = now
        self.release = release
    }

    /// The composition root of `warm run` and `warm demo`. The run owns all it builds, `decoder` included (nil: threads
    /// of this process): `close()` shuts it down.
    public static func live(configuration: WarmConfiguration, decoder: (any ThumbnailDecoding)?, measuringPool: MeasuringPool?,
                            faults: FaultInjector?, logger: Logger) throws(WarmRunError) -> WarmDependencies {
        // Before the run's threads allocate (a thread keeps its arena): with glibc's defaults freed image buffers stay
        // in per-thread arenas and the peak grows with the run (bench/findings.md section 2).
        ProcessAllocator.fixMmapThreshold(bytes: 256 * 1024)
        ProcessAllocator.limitArenas(to: 2)
        let (lock, cache, repair) = try openCache(configuration, faults: faults, logger: logger)
        let reserve = reserveSummarySpace(cache.layout, logger: logger)
        // Enough that a slow fsync does not hold up other stores, few enough to keep the disk's queue short.
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        // Images only from the API's host, page 1's hosts (public addresses) and --allow-host: a product record
        // cannot point the job at internal services.
        let hostGate = HostGate(
            explicit: [configuration.source.home.flatMap(HostPattern.init(url:))].compactMap { $0 } + configuration.fetching.allowedHosts)
        let http = HTTPFetcher(configuration: configuration.fetching.http, hostGate: hostGate, logger: logger)
        let decoder = decoder ?? InProcessDecoder(concurrency: configuration.decoding.concurrency)
        let release: @Sendable () async -> Void = {
            await decoder.shutdown()
            try? await http.shutdown()
            try? await pool.shutdownGracefully()
            try? cache.close()
            reserve?.release()
            lock.release()
        }
        var dependencies = WarmDependencies(fetcher: http, hostGate: hostGate,
                                            cache: CacheIO(cache: cache, pool: pool), decoder: decoder, release: release)
        dependencies.manifestRepair = repair
        dependencies.summaryReserve = reserve
        dependencies.measuringPool = measuringPool
        dependencies.faults = faults
        return dependencies
    }

    /// nil (logged) when the volume has not even that much room: the run goes on, and a summary it cannot write
    /// replaces no earlier one (`SummaryFile`).
    private static func reserveSummarySpace(_ layout: CacheLayout, logger: Logger) -> SpaceReserve? {
        do {
            return try SpaceReserve.reserve(in: layout)
        } catch {
            logger.warning("could not reserve space for the run's summary", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Call once, after `WarmPipeline.run`.
    func close() async {
        await release()
    }

    private static func openCache(_ configuration: WarmConfiguration, faults: FaultInjector?,
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
                maxAgeSeconds: configuration.freshness.maxAgeSeconds,
                logger: logger, faults: faults)
            return (lock, cache, repair)
        } catch {
            lock.release()
            throw .cache(error)
        }
    }
}
