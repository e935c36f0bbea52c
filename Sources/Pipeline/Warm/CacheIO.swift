import Cache
import ChildProcesses
import NIOPosix

/// The disk cache as a run's tasks call it: every call (a few SQLite
/// statements, a file write, two fsyncs per store) runs on a small thread
/// pool of its own, so the fetch workers that wait for it never block a
/// thread of Swift's cooperative pool (`DiskCache`'s own doc comment asks for
/// exactly that). The pool's threads are the bound: at most `threads`
/// cache calls run at once, the others wait suspended.
public struct CacheIO: Sendable {
    public let cache: DiskCache
    private let pool: NIOThreadPool

    /// `pool` must be started; its owner shuts it down after the run.
    public init(cache: DiskCache, pool: NIOThreadPool) {
        self.cache = cache
        self.pool = pool
    }

    /// Runs `body` on the pool and waits for it. A call runs to completion
    /// even when the waiting task is cancelled: a store that has begun must
    /// leave its file and row consistent, and a stopping run still records
    /// what it did.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (DiskCache) -> T) async -> T {
        let cache = self.cache
        return await BlockingWork.run(on: pool) { body(cache) }
    }

    /// `perform` for a call that throws.
    @discardableResult
    public func run<T: Sendable>(_ body: @escaping @Sendable (DiskCache) throws(CacheError) -> T) async throws(CacheError) -> T {
        try await perform { cache in Result { () throws(CacheError) -> T in try body(cache) } }.get()
    }
}
