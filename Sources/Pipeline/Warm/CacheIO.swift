import Cache
import WarmSupport
import NIOPosix

/// The disk cache on a thread pool of its own, so workers waiting for SQLite and fsyncs never block the cooperative
/// pool; its threads bound how many cache calls run at once, the others wait suspended.
struct CacheIO: Sendable {
    public let cache: DiskCache
    private let pool: NIOThreadPool

    /// `pool` must be started; its owner shuts it down after the run.
    public init(cache: DiskCache, pool: NIOThreadPool) {
        self.cache = cache
        self.pool = pool
    }

    /// Runs to completion even when the waiting task is cancelled: a store that has begun must leave its file and
    /// row consistent, and a stopping run still records what it did.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (DiskCache) -> T) async -> T {
        let cache = self.cache
        return await BlockingWork.run(on: pool) { body(cache) }
    }

    @discardableResult
    public func run<T: Sendable>(_ body: @escaping @Sendable (DiskCache) throws(CacheError) -> T) async throws(CacheError) -> T {
        try await perform { cache in Result { () throws(CacheError) -> T in try body(cache) } }.get()
    }
}
