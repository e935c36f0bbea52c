import NIOPosix

/// Runs blocking calls on an NIO thread pool, so Swift's narrow cooperative pool never sits in a system call.
/// Not cancellable: a started child is waited for (or it stays a zombie), a store that has begun finishes.
public enum BlockingWork {
    public static func run<T: Sendable>(on pool: NIOThreadPool = .singleton,
                                        _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            pool.submit { _ in continuation.resume(returning: body()) }
        }
    }
}
