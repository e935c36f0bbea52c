import Foundation
import Logging
import Pipeline
import UnixSignals

/// SIGTERM/SIGINT: the first stops admitting work and cancels what remains after `grace`; a second ends the
/// process. `UnixSignalsSequence`, not a `ServiceGroup`: the group names no signal and ignores a second.
enum SignalStop {
    static func run<Result: Sendable>(
        grace: Duration, logger: Logger,
        _ operation: @escaping @Sendable (StopRequest) async throws -> Result
    ) async throws -> Result {
        let stop = StopRequest()
        // A parent may have started us with these blocked (a Swift concurrency
        // thread's mask is inherited): they would never arrive.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &blocked, nil)
        // Trapped before the run starts, so no signal falls between.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let work = Task { try await operation(stop) }
        let watcher = Task {
            var graceTimer: Task<Void, Never>?
            defer { graceTimer?.cancel() }
            for await signal in signals {
                guard stop.request(reason: "received \(signal)", signal: signal.description) else {
                    logger.error("received \(signal) while stopping: exiting at once")
                    Self.dieBy(signal)
                }
                logger.warning("received \(signal): no new images; the ones in flight get \(grace) to finish, then are cancelled")
                graceTimer = Task {
                    try? await Task.sleep(for: grace)
                    if !Task.isCancelled { work.cancel() }
                }
            }
        }
        defer { watcher.cancel() }
        return try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() }
    }

    /// Ends the process the way the untrapped signal would (status 128 + n to a shell).
    private static func dieBy(_ signal: UnixSignal) -> Never {
        Foundation.signal(signal.rawValue, SIG_DFL)
        kill(getpid(), signal.rawValue)
        _exit(128 + signal.rawValue)
    }
}
