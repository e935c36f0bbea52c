import Cache
import Foundation

/// One distinct thumbnail URL to warm, with the products that show it.
struct ImageJob: Sendable {
    /// The cache key; `fetchURL` is what the API gave.
    var canonicalURL: CanonicalURL
    var fetchURL: URL
    var productIds: [Int]
    /// The URL's cache entries, read when its crawl page was admitted (nil:
    /// not read, the warm reads them itself).
    var cached: [CacheEntry]? = nil
}
