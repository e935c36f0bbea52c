import Foundation

/// The manifest's columns the pipeline supplies; `outputBytes` is not here: the cache takes it from the data it writes.
public struct CacheMetadata: Sendable, Hashable {
    public var etag: String?
    public var lastModified: String?
    var sourceBytes: Int
    /// As sniffed: "jpeg", "png", ...
    var sourceFormat: String
    var sourceWidth: Int
    var sourceHeight: Int
    var outputWidth: Int
    var outputHeight: Int
    /// Seconds since 1970.
    var fetchedAt: Double
    /// nil means `fetchedAt + DiskCache.maxAgeSeconds`.
    public var expiresAt: Double?
    var thumbHash: Data?
    var averageColor: String?

    public init(etag: String? = nil, lastModified: String? = nil, sourceBytes: Int, sourceFormat: String,
                sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int,
                fetchedAt: Double, expiresAt: Double? = nil, thumbHash: Data? = nil, averageColor: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.sourceBytes = sourceBytes
        self.sourceFormat = sourceFormat
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
        self.thumbHash = thumbHash
        self.averageColor = averageColor
    }
}
