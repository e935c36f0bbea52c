import Foundation

/// A body downloaded in full (2xx, at most `maxBodyBytes` in memory), with what a cache needs to revalidate it.
public struct FetchedResource: Sendable, Hashable {
    public var url: URL
    /// After redirects.
    public var finalURL: URL
    public var status: Int
    public var body: Data
    public var etag: String?
    public var lastModified: String?
    /// For reports only: Fetch decides nothing from it.
    public var contentType: String?
    public var attempts: Int
    /// On the successful attempt.
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

    public var validators: Validators { Validators(etag: etag, lastModified: lastModified) }
}
