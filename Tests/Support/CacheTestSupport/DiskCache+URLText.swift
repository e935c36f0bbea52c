import Cache
import Foundation

/// Tests' shorthand: the keyed calls for URL text, each canonicalising once
/// (`CacheError.invalidURL` for text that is no absolute URL). Shipped code
/// holds `CanonicalURL`s and calls the typed forms.
extension DiskCache {
    public func lookup(url: String, variant: CacheVariant, recordingAccess: Bool = true,
                       now: Double = Date().timeIntervalSince1970) throws(CacheError) -> CacheEntry? {
        try lookup(url: CanonicalURL(url), variant: variant, recordingAccess: recordingAccess, now: now)
    }

    public func entries(forURL url: String) throws(CacheError) -> [CacheEntry] {
        try entries(forURL: CanonicalURL(url))
    }

    @discardableResult
    public func touch(url: String, variant: CacheVariant, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> Bool {
        try touch(url: CanonicalURL(url), variant: variant, now: now)
    }

    @discardableResult
    public func store(url: String, productIds: [Int], variant: CacheVariant, data: Data,
                      metadata: CacheMetadata) throws(CacheError) -> CacheEntry {
        try store(url: CanonicalURL(url), productIds: productIds, variant: variant, data: data, metadata: metadata)
    }

    @discardableResult
    public func markRevalidated(url: String, expiresAt: Double? = nil,
                                now: Double = Date().timeIntervalSince1970) throws(CacheError) -> Int {
        try markRevalidated(url: CanonicalURL(url), expiresAt: expiresAt, now: now)
    }

    public func recordFailure(url: String, productIds: [Int], variant: CacheVariant, reason: String,
                              now: Double = Date().timeIntervalSince1970) throws(CacheError) {
        try recordFailure(url: CanonicalURL(url), productIds: productIds, variant: variant, reason: reason, now: now)
    }

    @discardableResult
    public func addProductIds(url: String, productIds: [Int]) throws(CacheError) -> Int {
        try addProductIds(url: CanonicalURL(url), productIds: productIds)
    }
}
