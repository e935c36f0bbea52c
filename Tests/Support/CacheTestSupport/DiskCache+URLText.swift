import Cache
import Foundation

/// Tests' shorthand: the keyed calls for URL text, each canonicalising once
/// (`CacheError.invalidURL` for text that is no absolute URL). Shipped code
/// holds `CanonicalURL`s and calls the typed forms.
extension DiskCache {
    /// The entry for one URL and variant, or nil; with `recordingAccess`, its
    /// `lastAccessAt` becomes `now` first (as `warm cache get` does).
    public func lookup(url: CanonicalURL, variant: CacheVariant, recordingAccess: Bool = true,
                       now: Double = Date().timeIntervalSince1970) throws(CacheError) -> CacheEntry? {
        if recordingAccess { try touch(url: url, variant: variant, now: now) }
        return try entries(forURL: url).first { $0.variant == variant }
    }

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

    /// Text that is no URL can match no row's key, so it is left out.
    @discardableResult
    public func markListed(urls: [String], at: Double, batchSize: Int = 500) throws(CacheError) -> Int {
        try markListed(urls: urls.compactMap { try? CanonicalURL($0) }, at: at, batchSize: batchSize)
    }
}

extension CacheEntry {
    /// A conditional request is only safe when a 304 would leave a usable file behind.
    public var canRevalidate: Bool {
        fileIsPresent && (row.etag != nil || row.lastModified != nil)
    }
}
