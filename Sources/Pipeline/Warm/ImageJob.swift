import Cache
import Foundation

/// One distinct thumbnail URL to warm, with the products that show it.
struct ImageJob: Sendable {
    /// The cache key; `fetchURL` is what the API gave.
    var canonicalURL: CanonicalURL
    var fetchURL: URL
    var productIds: [Int]
}
