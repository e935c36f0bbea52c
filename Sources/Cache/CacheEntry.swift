import Foundation
/// What the cache holds for one (URL, variant): the manifest row plus where
/// its file is and whether that file was found intact when the entry was read.
/// Times are seconds since 1970. Failure-only entries (the URL never produced a
/// thumbnail) have no path and no source or output fields.
public struct CacheEntry: Sendable, Hashable {
    /// Canonical URL (see `CanonicalURL`).
    public var url: String
    public var variant: CacheVariant
    /// Product ids that referenced this URL, merged across runs, ascending.
    public var productIds: [Int]
    /// Path relative to the cache root (`v1/ab/cd/<hash>.jpg`); nil for a failure-only entry.
    public var relativePath: String?
    /// Absolute path of the file; nil for a failure-only entry.
    public var absolutePath: String?
    /// True when, as this entry was read, its file existed as a regular file of
    /// exactly `outputBytes` bytes. False after someone deleted or damaged it,
    /// or after a crash between a file's rename and its row update.
    public var fileIsPresent: Bool

    public var etag: String?
    public var lastModified: String?
    public var sourceBytes: Int?
    public var sourceFormat: String?
    public var sourceWidth: Int?
    public var sourceHeight: Int?
    public var outputBytes: Int?
    public var outputWidth: Int?
    public var outputHeight: Int?
    public var fetchedAt: Double?
    public var expiresAt: Double?
    public var lastAccessAt: Double
    /// Why the latest fetch of this URL failed (a sentence); nil after a success.
    public var lastError: String?
    public var failedAt: Double?
    /// The source's placeholder, when the run that stored the file made one.
    public var thumbHash: Data?
    public var averageColor: String?

    /// Fresh: a usable file that has not expired. The pipeline skips fresh
    /// entries entirely and revalidates the rest.
    public func isFresh(now: Double) -> Bool {
        fileIsPresent && (expiresAt ?? -.infinity) > now
    }

    /// A conditional request is only safe when a 304 would leave a usable file behind.
    public var canRevalidate: Bool {
        fileIsPresent && (etag != nil || lastModified != nil)
    }
}

extension CacheEntry {
    init(row: ManifestRow, layout: CacheLayout, variant: CacheVariant, fileIsPresent: Bool) {
        url = row.url
        self.variant = variant
        productIds = row.productIds
        relativePath = row.path
        absolutePath = row.path.map(layout.absolutePath(relative:))
        self.fileIsPresent = fileIsPresent
        etag = row.etag
        lastModified = row.lastModified
        sourceBytes = row.sourceBytes
        sourceFormat = row.sourceFormat
        sourceWidth = row.sourceWidth
        sourceHeight = row.sourceHeight
        outputBytes = row.outputBytes
        outputWidth = row.outputWidth
        outputHeight = row.outputHeight
        fetchedAt = row.fetchedAt
        expiresAt = row.expiresAt
        lastAccessAt = row.lastAccessAt
        lastError = row.lastError
        failedAt = row.failedAt
        thumbHash = row.thumbHash
        averageColor = row.averageColor
    }
}
