import Synchronization

/// Stop admitting work (SIGTERM, SIGINT): in-flight images finish and the run ends as usual (summary, lock released).
/// Whoever asks also cancels the run if they take too long (`--stop-grace`).
public final class StopRequest: Sendable {
    private struct State {
        var reason: String?
        var signal: String?
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

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

    var reason: String? { state.withLock { $0.reason } }

    /// Nil when no signal asked.
    var signal: String? { state.withLock { $0.signal } }

    /// At once when a stop was already requested.
    func onRequest(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state in
            if state.reason == nil { state.handlers.append(handler) }
            return state.reason != nil
        }
        if already { handler() }
    }
}
