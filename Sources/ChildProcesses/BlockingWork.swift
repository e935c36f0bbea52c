import NIOPosix

/// Runs blocking calls (waiting for a child, reading its pipe to the end) on
/// NIO's shared thread pool, so that Swift's cooperative pool, a few threads
/// wide, never sits in a system call.
public enum BlockingWork {
    /// Runs `body` on `NIOThreadPool.singleton` and returns its result. Not
    /// cancellable: a child that was started is waited for, or it would stay a
    /// zombie.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            // The singleton is never shut down, so the state is always active.
            NIOThreadPool.singleton.submit { _ in continuation.resume(returning: body()) }
        }
    }
}
