import Fetch
import Foundation

/// Why one product's detail gave no images tonight; each names the product and its detail URL. A failure of that
/// product only: `DetailReader` reads the others, and the caller counts it and names it in the summary.
public enum DetailFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Even after the fetcher's retries (a 404, a host the allow-list refuses, a body over the limit...).
    case fetchFailed(productID: Int, url: URL, error: FetchError)
    /// The server answered 304 to a request that sent no validators.
    case notModified(productID: Int, url: URL)
    /// Not JSON, not an object, no integer `id`, or `images` that is not a list.
    case notADetail(productID: Int, url: URL, problem: String)
    /// The detail describes another product.
    case wrongID(productID: Int, url: URL, answeredID: Int)
    /// More carousel entries than `DetailReader.maxImagesPerProduct`.
    case tooManyImages(productID: Int, url: URL, count: Int, limit: Int)

    public var productID: Int { product.id }

    /// The detail URL asked for.
    public var url: URL { product.url }

    private var product: (id: Int, url: URL) {
        switch self {
        case .fetchFailed(let id, let url, _), .notModified(let id, let url), .notADetail(let id, let url, _),
             .wrongID(let id, let url, _), .tooManyImages(let id, let url, _, _):
            return (id, url)
        }
    }

    /// A short stable code for reports and metrics; the run's summary counts it as `detail-` + this.
    public var reasonCode: String {
        switch self {
        case .fetchFailed(_, _, let error): return error.reasonCode
        case .notModified: return "unexpected-304"
        case .notADetail: return "unparseable-detail"
        case .wrongID: return "wrong-id"
        case .tooManyImages: return "too-many-images"
        }
    }

    public var description: String {
        switch self {
        case .fetchFailed(let id, _, let error):
            return "The detail of product \(id) could not be fetched: \(error.description)"
        case .notModified(let id, let url):
            return "The detail of product \(id) (\(url.absoluteString)) answered 304 Not Modified to an unconditional request."
        case .notADetail(let id, let url, let problem):
            return "The detail of product \(id) (\(url.absoluteString)) is not a product detail: \(problem)."
        case .wrongID(let id, let url, let answered):
            return "The detail of product \(id) (\(url.absoluteString)) describes product \(answered); its images were not used."
        case .tooManyImages(let id, let url, let count, let limit):
            return "The detail of product \(id) (\(url.absoluteString)) lists \(count) images, more than the limit of "
                + "\(limit) a carousel may hold; none of them was used."
        }
    }
}
