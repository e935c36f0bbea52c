import Foundation  // only Foundation: fuzz/Sources/PageParsing builds this file on its own

/// One marketplace product; only `id` is required, so the crawl does not lose a page to one odd field.
public struct Product: Sendable, Hashable, Codable, Identifiable {
    public var id: Int
    public var vendorID: Int?
    public var vendorName: String?
    public var name: String?
    public var description: String?
    public var thumbnail: String?
    public var currency: String?
    public var price: Double?
    public var bargainPrice: Double?
    public var discountedPrice: Double?
    public var stock: Int?
    public var createdAt: String?
    public var issuedAt: String?

    /// The other fields are set one by one.
    public init(id: Int) {
        self.id = id
    }

    /// nil when the thumbnail is missing, empty or not an absolute http(s) URL (counted and skipped).
    public var thumbnailURL: URL? {
        guard let text = thumbnail?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
              let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return nil }
        return url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        guard let id: Int = container.lenient(["id"]) else {
            let key = AnyCodingKey("id")
            if container.contains(key) {
                throw DecodingError.typeMismatch(Int.self, .init(
                    codingPath: decoder.codingPath + [key], debugDescription: "The product id is not an integer."))
            }
            throw DecodingError.keyNotFound(key, .init(
                codingPath: decoder.codingPath, debugDescription: "A product has no id."))
        }
        self.id = id
        vendorID = container.lenient(["vendor_id", "vendorId", "vendorID"])
        vendorName = container.lenient(["vendorName", "vendor_name"])
        name = container.lenient(["name"])
        description = container.lenient(["description"])
        thumbnail = container.lenient(["thumbnail"])
        currency = container.lenient(["currency"])
        price = container.lenient(["price"])
        bargainPrice = container.lenient(["bargain_price", "bargainPrice"])
        discountedPrice = container.lenient(["discounted_price", "discountedPrice"])
        stock = container.lenient(["stock"])
        createdAt = container.lenient(["created_at", "createdAt"])
        issuedAt = container.lenient(["issued_at", "issuedAt"])
    }

    /// The keys `encode(to:)` writes (synthesised); decoding also accepts the other spellings.
    private enum CodingKeys: String, CodingKey {
        case id, vendorID = "vendor_id", vendorName, name, description, thumbnail, currency, price
        case bargainPrice = "bargain_price", discountedPrice = "discounted_price", stock
        case createdAt = "created_at", issuedAt = "issued_at"
    }
}
