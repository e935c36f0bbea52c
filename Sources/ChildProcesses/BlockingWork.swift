import NIOPosix

/// Runs blocking calls (a child's wait or pipe, a cache write, a file read) on an NIO thread pool, so that
/// Swift's cooperative pool, a few threads wide, never sits in a system call. Not cancellable: a started
/// child is waited for (or it would stay a zombie), a store that has begun finishes.
public enum BlockingWork {
    public static func run<T: Sendable>(on pool: NIOThreadPool = .singleton,
                                        _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            pool.submit { _ in continuation.resume(returning: body()) }
        }
    }
}
