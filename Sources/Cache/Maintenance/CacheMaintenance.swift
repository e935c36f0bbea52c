import GRDB
import Logging

/// The whole-cache operations, apart from the read/write path a run's stages use (`DiskCache`): merging shards and
/// publishing snapshots (`warm cache merge`), eviction to a size (`warm cache evict`, a night's `--max-cache-size`),
/// garbage collection, verification, counts (`warm cache gc|verify|stats`) and the app manifest (`warm cache export`,
/// a night's `--export`). A value over an open cache: `cache.maintenance.verify(validator:)`. Where an operation
/// writes, the caller holds the `CacheLock`, as for `DiskCache`'s writes.
public struct CacheMaintenance: Sendable {
    let cache: DiskCache

    init(_ cache: DiskCache) {
        self.cache = cache
    }

    var layout: CacheLayout { cache.layout }
    var pool: DatabasePool { cache.pool }
    var files: CacheFileStore { cache.files }
    var logger: Logger { cache.logger }
}

extension DiskCache {
    /// Merge, evict, collect garbage, verify, count, export.
    public var maintenance: CacheMaintenance { CacheMaintenance(self) }
}
