/// The validators a cache keeps for a resource and sends back on the next
/// fetch (`If-None-Match`, `If-Modified-Since`), exactly as the server sent them.
public struct Validators: Sendable, Hashable, Codable {
    /// The `ETag` header, quotes and weak prefix included.
    public var etag: String?
    /// The `Last-Modified` header, an HTTP date kept as text so it goes back unchanged.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when there is nothing to send.
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
