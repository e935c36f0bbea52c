import Cache
import Downsample
import Fetch

/// What went wrong with one image, and the URL and products it concerns.
struct ImageFailure: Error, Sendable, CustomStringConvertible {
    enum Cause: Error, Sendable {
        case fetch(FetchError)
        case decode(DownsampleError)
        case cache(CacheError)
        /// The image was warmed but its metrics record could not be written.
        case metrics(reason: String)
    }

    var url: String
    var productIds: [Int]
    var cause: Cause

    /// Stable, for grouping ("http-404", "not-an-image", ...).
    var reasonCode: String {
        switch cause {
        case .fetch(let error): error.reasonCode
        case .decode(let error): error.reasonCode
        case .cache(let error): error.reasonCode
        case .metrics: "metrics-file"
        }
    }

    /// The sentence stored in the manifest's lastError.
    var reason: String {
        switch cause {
        case .fetch(let error): "\(error)"
        case .decode(let error): "\(error)"
        case .cache(let error): "\(error)"
        case .metrics(let reason): "the metrics record could not be written: \(reason)"
        }
    }

    var description: String { Self.named(url: url, productIds: productIds) + ": " + reason }

    /// "URL (product 1, 2, ...)".
    static func named(url: String, productIds: [Int]) -> String {
        let ids = productIds.prefix(5).map(String.init).joined(separator: ", ") + (productIds.count > 5 ? ", ..." : "")
        return "\(url) (product \(ids))"
    }
}
