import Foundation

/// A response body that was downloaded in full (2xx), with what a cache needs
/// to revalidate it later. Holds the whole body in memory (at most
/// `FetchConfiguration.maxBodyBytes`).
public struct FetchedResource: Sendable, Hashable {
    /// The URL that was asked for.
    public var url: URL
    /// The URL that answered, after redirects.
    public var finalURL: URL
    public var status: Int
    public var body: Data
    public var etag: String?
    public var lastModified: String?
    /// The server's `Content-Type`, for reports only: Fetch decides nothing from it.
    public var contentType: String?
    /// Attempts used, the successful one included.
    public var attempts: Int
    /// Redirects followed on the successful attempt.
    public var redirects: Int

    public init(url: URL, finalURL: URL, status: Int, body: Data, etag: String?, lastModified: String?,
                contentType: String?, attempts: Int, redirects: Int) {
        self.url = url
        self.finalURL = finalURL
        self.status = status
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.attempts = attempts
        self.redirects = redirects
    }

    /// What to send on the next fetch of this URL.
    public var validators: Validators { Validators(etag: etag, lastModified: lastModified) }
}
