/// The `ETag` and `Last-Modified` a cache keeps for a resource and sends back on the next fetch, exactly as
/// the server sent them (quotes, weak prefix and date text included).
public struct Validators: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isEmpty: Bool { etag == nil && lastModified == nil }
}
