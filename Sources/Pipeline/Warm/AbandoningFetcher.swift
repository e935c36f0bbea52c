import Fetch
import Foundation
import Synchronization

/// Decorates a `Fetching` so that a cancelled fetch returns at once
/// (`FetchError.cancelled`) instead of waiting for its request to notice:
/// AsyncHTTPClient's body stream does not check task cancellation, so a
/// stalled download would hold a stopping run (SIGTERM, `--stop-grace`) until
/// its timeouts. The abandoned request is cancelled too and ends at the
/// latest with the HTTP client's shutdown; nothing waits for its bytes, so
/// nothing is stored from it.
struct AbandoningFetcher: Fetching {
    let upstream: any Fetching

    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        let race = Race()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<FetchOutcome, FetchError>, Never>) in
                race.wait(continuation)
                let upstream = self.upstream
                race.started(Task {
                    let outcome: Result<FetchOutcome, FetchError>
                    do throws(FetchError) {
                        outcome = .success(try await upstream.get(url, validators: validators))
                    } catch {
                        outcome = .failure(error)
                    }
                    race.finish(outcome)
                })
            }
        } onCancel: {
            race.finish(.failure(.cancelled(url: url)))
        }
        return try result.get()
    }

    /// The first of the fetch's end and the cancellation resumes the caller; the other is dropped.
    private final class Race: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result<FetchOutcome, FetchError>, Never>?
            var early: Result<FetchOutcome, FetchError>?
            var task: Task<Void, Never>?
            var done = false
        }

        private let state = Mutex(State())

        func wait(_ continuation: CheckedContinuation<Result<FetchOutcome, FetchError>, Never>) {
            let early: Result<FetchOutcome, FetchError>? = state.withLock { state in
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }

        func started(_ task: Task<Void, Never>) {
            let cancel = state.withLock { state in
                state.task = task
                return state.done
            }
            if cancel { task.cancel() }
        }

        func finish(_ result: Result<FetchOutcome, FetchError>) {
            let (continuation, task) = state.withLock { state -> (CheckedContinuation<Result<FetchOutcome, FetchError>, Never>?, Task<Void, Never>?) in
                guard !state.done else { return (nil, nil) }
                state.done = true
                guard let continuation = state.continuation else {
                    state.early = result
                    return (nil, state.task)
                }
                state.continuation = nil
                return (continuation, state.task)
            }
            continuation?.resume(returning: result)
            task?.cancel()
        }
    }
}
