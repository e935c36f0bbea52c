import NIOPosix

/// Runs blocking calls (waiting for a child, reading its pipe to the end, a
/// cache write) on an NIO thread pool, so that Swift's cooperative pool, a
/// few threads wide, never sits in a system call.
public enum BlockingWork {
    /// Runs `body` on `pool` (NIO's shared pool by default) and returns its
    /// result. Not cancellable: a child that was started is waited for, or it
    /// would stay a zombie; a store that has begun finishes. On a pool that is
    /// already stopping, NIO runs `body` at once on the calling thread.
    public static func run<T: Sendable>(on pool: NIOThreadPool = .singleton,
                                        _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            pool.submit { _ in continuation.resume(returning: body()) }
        }
    }
}
