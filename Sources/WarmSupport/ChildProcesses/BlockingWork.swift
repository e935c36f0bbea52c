import NIOPosix

/// Runs blocking calls on an NIO thread pool, so Swift's narrow cooperative pool never sits in a system call.
/// Not cancellable: a started child is waited for (or it stays a zombie), a store that has begun finishes.
public enum BlockingWork {
    /// `ifShutDown`: the answer, without running `body`, once `pool` is shut down (nil: run it all the same).
    public static func run<T: Sendable>(on pool: NIOThreadPool = .singleton, ifShutDown: T? = nil,
                                        _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            pool.submit { state in
                switch (state, ifShutDown) {
                case (.active, _), (_, nil): continuation.resume(returning: body())
                case (_, let answer?): continuation.resume(returning: answer)
                }
            }
        }
    }
}
