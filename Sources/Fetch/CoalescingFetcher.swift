import Foundation

/// Joins concurrent fetches of the same URL (with the same validators) into
/// one download whose outcome every caller receives, as Nuke does for image
/// requests. Only fetches in flight are shared; nothing is cached afterwards.
///
/// The shared download runs in its own task, so cancelling one caller does not
/// cancel the download for the others (a cancelled caller still waits for it;
/// the underlying fetcher's deadline bounds that wait). Costs one dictionary
/// entry per URL in flight.
public actor CoalescingFetcher: Fetching {
    private struct Key: Hashable {
        var url: URL
        var validators: Validators?
    }

    private let upstream: any Fetching
    private var inFlight: [Key: Task<FetchOutcome, any Error>] = [:]
    /// Calls that started a download.
    public private(set) var downloadsStarted = 0
    /// Calls that joined a download already in flight.
    public private(set) var joinedCalls = 0

    public init(upstream: any Fetching) {
        self.upstream = upstream
    }

    public func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        let key = Key(url: url, validators: validators?.isEmpty == true ? nil : validators)
        let task: Task<FetchOutcome, any Error>
        if let running = inFlight[key] {
            joinedCalls += 1
            task = running
        } else {
            downloadsStarted += 1
            let upstream = self.upstream
            task = Task {
                // Forget the download once it ends, whoever is still waiting for it.
                do {
                    let outcome = try await upstream.get(url, validators: key.validators)
                    self.finish(key)
                    return outcome
                } catch {
                    self.finish(key)
                    throw error
                }
            }
            inFlight[key] = task
        }
        switch await task.result {
        case .success(let outcome):
            return outcome
        case .failure(let error as FetchError):
            throw error
        case .failure:
            // Unreachable in practice: the upstream throws only FetchError.
            throw FetchError.cancelled(url: url)
        }
    }

    private func finish(_ key: Key) {
        inFlight[key] = nil
    }
}
