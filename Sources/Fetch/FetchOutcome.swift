import Foundation

/// What a successful fetch produced: a new body, or the server's word that
/// the copy the caller holds is still current.
public enum FetchOutcome: Sendable, Hashable {
    /// 2xx: the body was downloaded.
    case fetched(FetchedResource)
    /// 304: the validators sent still match. `validators` are the server's
    /// refreshed ones, falling back to those sent when the 304 repeats none.
    case notModified(url: URL, validators: Validators, attempts: Int)

    public var url: URL {
        switch self {
        case .fetched(let resource): return resource.url
        case .notModified(let url, _, _): return url
        }
    }

    public var attempts: Int {
        switch self {
        case .fetched(let resource): return resource.attempts
        case .notModified(_, _, let attempts): return attempts
        }
    }

    /// The downloaded resource, or nil for 304.
    public var resource: FetchedResource? {
        if case .fetched(let resource) = self { return resource }
        return nil
    }
}
