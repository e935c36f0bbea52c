/// One distinct thumbnail URL to warm, with the products that show it.
struct ImageJob: Sendable {
    /// Canonical URL (the cache key); `fetchURL` is what the API gave.
    var canonicalURL: String
    var fetchURL: String
    var productIds: [Int]
}
