import Foundation

/// Something that performs conditional GETs: `HTTPFetcher`, or a
/// `CoalescingFetcher` in front of one. Stages take this so tests and the
/// pipeline can put coalescing (or a fake) in between.
public protocol Fetching: Sendable {
    /// Fetches `url`, sending `validators` as `If-None-Match` / `If-Modified-Since`.
    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome
}

extension Fetching {
    /// An unconditional GET.
    public func get(_ url: URL) async throws(FetchError) -> FetchOutcome {
        try await get(url, validators: nil)
    }
}
