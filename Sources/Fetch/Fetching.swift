import Foundation

/// Conditional GETs: `HTTPFetcher`, or a `CoalescingFetcher` (or a test's fake) in front of one.
public protocol Fetching: Sendable {
    /// `validators` are sent as `If-None-Match` / `If-Modified-Since`.
    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome
}

extension Fetching {
    public func get(_ url: URL) async throws(FetchError) -> FetchOutcome {
        try await get(url, validators: nil)
    }
}
