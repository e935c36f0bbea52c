import Foundation

/// What to crawl and how hard.
public struct CrawlConfiguration: Sendable, Hashable {
    /// A path prefix is kept.
    var apiBaseURL: URL
    /// Products asked for per page (the server may cap it; its answer wins).
    var itemsPerPage: Int
    /// Pages fetched at once; also how far the crawler may run ahead of a slow consumer.
    var pageConcurrency: Int
    /// The first, then re-fetches of pages whose products may have shifted while the list grew (`Crawler`).
    var maxPasses: Int
    /// Hand over products without a thumbnail too (their detail may still show photos); default: only those with one.
    public var deliversProductsWithoutThumbnail: Bool

    public init(apiBaseURL: URL, itemsPerPage: Int = 100, pageConcurrency: Int = 4, maxPasses: Int = 4,
                deliversProductsWithoutThumbnail: Bool = false) {
        self.apiBaseURL = apiBaseURL
        self.deliversProductsWithoutThumbnail = deliversProductsWithoutThumbnail
        self.itemsPerPage = max(1, itemsPerPage)
        self.pageConcurrency = max(1, pageConcurrency)
        self.maxPasses = max(1, maxPasses)
    }

    func pageURL(pageNo: Int, itemsPerPage: Int? = nil) -> URL {
        apiBaseURL.appending(path: "api/products").appending(queryItems: [
            URLQueryItem(name: "page_no", value: String(pageNo)),
            URLQueryItem(name: "items_per_page", value: String(itemsPerPage ?? self.itemsPerPage)),
        ])
    }
}
