import Foundation
/// What the pipeline knows about a thumbnail it stores: the HTTP validators
/// of the source, the source's and the output's sizes, and when it was fetched.
/// `outputBytes` is not here: the cache takes it from the data it writes.
public struct CacheMetadata: Sendable, Hashable {
    /// HTTP `ETag` of the source, for `If-None-Match` next time.
    public var etag: String?
    /// HTTP `Last-Modified` of the source, for `If-Modified-Since` next time.
    public var lastModified: String?
    /// Encoded size of the downloaded source, in bytes.
    public var sourceBytes: Int
    /// Source format as sniffed ("jpeg", "png", ...).
    public var sourceFormat: String
    public var sourceWidth: Int
    public var sourceHeight: Int
    public var outputWidth: Int
    public var outputHeight: Int
    /// When the source was downloaded, in seconds since 1970.
    public var fetchedAt: Double
    /// When the entry stops being fresh, in seconds since 1970; nil means
    /// `fetchedAt + CacheConfiguration.maxAgeSeconds`.
    public var expiresAt: Double?
    /// The source's ThumbHash and its average colour (`#rrggbb`), when the run made them.
    public var thumbHash: Data?
    public var averageColor: String?

    public init(etag: String? = nil, lastModified: String? = nil, sourceBytes: Int, sourceFormat: String,
                sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int,
                fetchedAt: Double, expiresAt: Double? = nil, thumbHash: Data? = nil, averageColor: String? = nil) {
        self.thumbHash = thumbHash
        self.averageColor = averageColor
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
    }
}
