import Fetch
import Foundation

/// Why one page of the product list could not be used.
public enum CrawlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Even after the fetcher's retries.
    case pageFetchFailed(pageNo: Int, url: URL, error: FetchError)
    case pageDidNotParse(pageNo: Int, url: URL, problem: String)
    /// The server answered 304 to a request that sent no validators.
    case pageNotModified(pageNo: Int, url: URL)
    /// Every product of the page was seen before at other positions: the products it should hold were not.
    case pageRepeatsAnother(pageNo: Int, url: URL)

    public var pageNo: Int { page.pageNo }

    public var url: URL { page.url }

    private var page: (pageNo: Int, url: URL) {
        switch self {
        case .pageFetchFailed(let pageNo, let url, _), .pageDidNotParse(let pageNo, let url, _),
             .pageNotModified(let pageNo, let url), .pageRepeatsAnother(let pageNo, let url):
            return (pageNo, url)
        }
    }

    /// A short stable code for reports and metrics.
    public var reasonCode: String {
        switch self {
        case .pageFetchFailed(_, _, let error): return error.reasonCode
        case .pageDidNotParse: return "unparseable-page"
        case .pageNotModified: return "unexpected-304"
        case .pageRepeatsAnother: return "repeated-page"
        }
    }

    public var description: String {
        switch self {
        case .pageFetchFailed(let pageNo, _, let error):
            return "Product page \(pageNo) could not be fetched: \(error.description)"
        case .pageDidNotParse(let pageNo, let url, let problem):
            return "Product page \(pageNo) (\(url.absoluteString)) did not parse: \(problem)."
        case .pageNotModified(let pageNo, let url):
            return "Product page \(pageNo) (\(url.absoluteString)) answered 304 Not Modified to an unconditional request."
        case .pageRepeatsAnother(let pageNo, let url):
            return "Product page \(pageNo) (\(url.absoluteString)) holds only products already seen on other pages; the products it should list were not seen."
        }
    }
}
