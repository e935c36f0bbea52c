import Cache
import Downsample
import Fetch

public enum ImageFailure: Error, Sendable, CustomStringConvertible {
    case fetch(url: String, productIds: [Int], FetchError)
    case decode(url: String, productIds: [Int], DownsampleError)
    case cache(url: String, productIds: [Int], CacheError)
    /// The image was warmed but its metrics record could not be written.
    case metrics(url: String, productIds: [Int], reason: String)

    public var url: String { subject.url }

    private var subject: (url: String, productIds: [Int]) {
        switch self {
        case .fetch(let url, let ids, _), .decode(let url, let ids, _), .cache(let url, let ids, _), .metrics(let url, let ids, _):
            return (url, ids)
        }
    }

    /// Stable, for grouping ("http-404", "not-an-image", ...).
    public var reasonCode: String {
        switch self {
        case .fetch(_, _, let error): return error.reasonCode
        case .decode(_, _, let error): return error.reasonCode
        case .cache(_, _, let error): return error.reasonCode
        case .metrics: return "metrics-file"
        }
    }

    /// The sentence stored in the manifest's lastError.
    public var reason: String {
        switch self {
        case .fetch(_, _, let error): return "\(error)"
        case .decode(_, _, let error): return "\(error)"
        case .cache(_, _, let error): return "\(error)"
        case .metrics(_, _, let reason): return "the metrics record could not be written: \(reason)"
        }
    }

    public var description: String {
        let products = subject.productIds
        let named = products.prefix(5).map(String.init).joined(separator: ", ") + (products.count > 5 ? ", ..." : "")
        return "\(url) (product \(named)): \(reason)"
    }
}
