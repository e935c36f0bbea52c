import Foundation

/// What a successful fetch produced: a new body (2xx), or the server's word that the caller's copy is current.
public enum FetchOutcome: Sendable, Hashable {
    case fetched(FetchedResource)
    /// 304. `validators` are the server's refreshed ones, or those sent when the 304 repeats none.
    case notModified(url: URL, validators: Validators, attempts: Int)

    public var attempts: Int {
        switch self {
        case .fetched(let resource): return resource.attempts
        case .notModified(_, _, let attempts): return attempts
        }
    }

    public var resource: FetchedResource? {
        if case .fetched(let resource) = self { return resource }
        return nil
    }
}
