import Foundation

/// Joins concurrent fetches of one URL (same validators) into one download, as Nuke does; nothing is cached. The
/// download runs in its own task, so a cancelled caller returns at once and the others still get it.
public actor CoalescingFetcher: Fetching {
    private struct Key: Hashable {
        var url: URL
        var validators: Validators?
    }

    private let upstream: any Fetching
    private var inFlight: [Key: Task<Result<FetchOutcome, FetchError>, Never>] = [:]

    public init(upstream: any Fetching) {
        self.upstream = upstream
    }

    public func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        let key = Key(url: url, validators: validators?.isEmpty == true ? nil : validators)
        let task = inFlight[key] ?? Task {
            let outcome: Result<FetchOutcome, FetchError>
            do throws(FetchError) {
                outcome = .success(try await upstream.get(url, validators: key.validators))
            } catch {
                outcome = .failure(error)
            }
            inFlight[key] = nil
            return outcome
        }
        inFlight[key] = task
        // The task's value, unless this caller is cancelled first (AsyncStream's iteration notices that).
        let (stream, continuation) = AsyncStream<Result<FetchOutcome, FetchError>>.makeStream()
        let relay = Task {
            continuation.yield(await task.value)
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        for await outcome in stream { return try outcome.get() }
        throw .cancelled(url: url)
    }
}
