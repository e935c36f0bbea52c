import Synchronization

/// A request, from outside the run (SIGTERM, SIGINT), to stop admitting work:
/// the crawl stops, no new image starts, images in flight finish, and the run
/// then finishes as usual (summary, Prometheus file, lock released).
/// Whoever asks also cancels the run if the in-flight images take too long
/// (`warm run --stop-grace`). Cheap: one lock around a reason and the
/// handlers the running stages registered.
public final class StopRequest: Sendable {
    private struct State {
        var reason: String?
        var signal: String?
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Asks the run to stop; `signal` (e.g. "SIGTERM") goes to the summary.
    /// Only the first request counts; returns false for later ones.
    @discardableResult
    public func request(reason: String, signal: String? = nil) -> Bool {
        let handlers: [@Sendable () -> Void]? = state.withLock { state in
            guard state.reason == nil else { return nil }
            state.reason = reason
            state.signal = signal
            defer { state.handlers = [] }
            return state.handlers
        }
        guard let handlers else { return false }
        for handler in handlers { handler() }
        return true
    }

    public var reason: String? { state.withLock { $0.reason } }

    /// Nil when no signal asked.
    public var signal: String? { state.withLock { $0.signal } }

    /// Runs `handler` when a stop is requested (at once when it already was).
    func onRequest(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            if state.reason == nil { state.handlers.append(handler) }
            return state.reason != nil
        }
        if already { handler() }
    }
}
