import Foundation

/// Conditional GETs: `HTTPFetcher`, or a test's fake. No coalescing layer: `JobAdmission` admits each image URL once
/// a run, and the crawl asks for each page once.
public protocol Fetching: Sendable {
    /// `validators` are sent as `If-None-Match` / `If-Modified-Since`.
    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome
}

extension Fetching {
    public func get(_ url: URL) async throws(FetchError) -> FetchOutcome {
        try await get(url, validators: nil)
    }
}

/// What a successful fetch produced: a new body (2xx), or the server's word that the caller's copy is current.
public enum FetchOutcome: Sendable, Hashable {
    case fetched(FetchedResource)
    /// 304. `validators` are the server's refreshed ones, or those sent when the 304 repeats none.
    case notModified(url: URL, validators: Validators, attempts: Int)

    public var resource: FetchedResource? {
        if case .fetched(let resource) = self { return resource }
        return nil
    }
}

/// A body downloaded in full (2xx, at most `maxBodyBytes` in memory), with what a cache needs to revalidate it.
public struct FetchedResource: Sendable, Hashable {
    public var url: URL
    /// After redirects.
    var finalURL: URL
    var status: Int
    public var body: Data
    public var etag: String?
    public var lastModified: String?
    /// For reports only: Fetch decides nothing from it.
    var contentType: String?
    var attempts: Int
    /// On the successful attempt.
    var redirects: Int

    init(url: URL, finalURL: URL, status: Int, body: Data, etag: String?, lastModified: String?,
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

/// `ETag` and `Last-Modified` kept and sent back exactly as the server sent them (quotes, weak prefix, date text).
public struct Validators: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    var isEmpty: Bool { etag == nil && lastModified == nil }
}

extension URL {
    /// Absolute http(s) with a host: the only URLs fetched.
    var isHTTP: Bool { ["http", "https"].contains(scheme?.lowercased()) && host?.isEmpty == false }
}
