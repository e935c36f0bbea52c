import Foundation

/// Where tonight's list of images comes from: an OpenMarket-style API (`--api`), a file of image URLs (`--urls`), or
/// a sitemap (`--sitemap`). Each goes through the run's fetcher, limits, statuses and pruning alike; a source that
/// cannot be read whole is a list failure (exit 6), with nothing pruned.
public enum CatalogSource: Sendable, Hashable, CustomStringConvertible {
    /// Its `/api/products` is crawled page by page.
    case openMarket(api: URL)
    /// One image URL a line, with an optional product id; "-" is standard input.
    case urlList(path: String)
    /// A sitemaps.org sitemap or sitemap index, its images named by Google's image extension.
    case sitemap(URL)

    /// For sentences: "the API at http://…".
    public var description: String {
        switch self {
        case .openMarket(let api): "the API at \(api.absoluteString)"
        case .urlList(let path): path == "-" ? "the URL list on standard input" : "the URL list \(path)"
        case .sitemap(let url): "the sitemap at \(url.absoluteString)"
        }
    }

    /// The API's or the sitemap's URL, or the list's path: the summary's `api` field.
    var location: String {
        switch self {
        case .openMarket(let api): api.absoluteString
        case .urlList(let path): path
        case .sitemap(let url): url.absoluteString
        }
    }

    /// The host the run may always fetch from (the images' hosts are learnt from the list).
    var home: URL? {
        switch self {
        case .openMarket(let api): api
        case .urlList: nil
        case .sitemap(let url): url
        }
    }
}
