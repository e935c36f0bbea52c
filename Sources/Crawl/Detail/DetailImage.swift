import Foundation

/// One entry of a product detail's `images` (the carousel), as the public OpenMarket clients decode it:
/// `{id, url, thumbnail_url, issued_at}`, camelCase (`thumbnailUrl`, `issuedAt`) accepted too.
///
/// Decoding never fails: an entry that is not an object, or whose fields are odd, decodes with nil fields, so that
/// one bad entry costs that entry (skipped and counted by `DetailReader`), never the product.
public struct DetailImage: Sendable, Hashable, Decodable {
    public var id: Int?
    public var url: String?
    public var thumbnailURL: String?
    public var issuedAt: String?

    public init(id: Int? = nil, url: String? = nil, thumbnailURL: String? = nil, issuedAt: String? = nil) {
        self.id = id
        self.url = url
        self.thumbnailURL = thumbnailURL
        self.issuedAt = issuedAt
    }

    public init(from decoder: any Decoder) {
        guard let container = try? decoder.container(keyedBy: AnyCodingKey.self) else { return }
        id = container.lenient(["id"])
        url = container.lenient(["url"])
        thumbnailURL = container.lenient(["thumbnail_url", "thumbnailUrl", "thumbnailURL"])
        issuedAt = container.lenient(["issued_at", "issuedAt"])
    }

    /// `url` when it is an absolute http(s) URL with a host (surrounding white space ignored); nil otherwise.
    public var imageURL: URL? {
        url.flatMap { URL(listedHTTP: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
