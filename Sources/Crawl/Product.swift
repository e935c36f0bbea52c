import Foundation

/// One marketplace product as the list API describes it.
///
/// Decoding is lenient, because the crawl must not lose a page to one odd
/// field: only `id` is required; every other field is nil when missing, null
/// or of an unexpected type, and numbers written as strings are accepted.
/// Encoding writes the API's own keys (`vendor_id`, `vendorName`, `bargain_price`...).
public struct Product: Sendable, Hashable, Codable, Identifiable {
    public var id: Int
    public var vendorID: Int?
    public var vendorName: String?
    public var name: String?
    public var description: String?
    /// The thumbnail URL as the API gave it; see `thumbnailURL`.
    public var thumbnail: String?
    public var currency: String?
    public var price: Double?
    public var bargainPrice: Double?
    public var discountedPrice: Double?
    public var stock: Int?
    public var createdAt: String?
    public var issuedAt: String?

    public init(id: Int, vendorID: Int? = nil, vendorName: String? = nil, name: String? = nil,
                description: String? = nil, thumbnail: String? = nil, currency: String? = nil,
                price: Double? = nil, bargainPrice: Double? = nil, discountedPrice: Double? = nil,
                stock: Int? = nil, createdAt: String? = nil, issuedAt: String? = nil) {
        self.id = id
        self.vendorID = vendorID
        self.vendorName = vendorName
        self.name = name
        self.description = description
        self.thumbnail = thumbnail
        self.currency = currency
        self.price = price
        self.bargainPrice = bargainPrice
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.createdAt = createdAt
        self.issuedAt = issuedAt
    }

    /// The thumbnail as an absolute http(s) URL, or nil when it is missing,
    /// empty or not such a URL (those products are counted and skipped).
    public var thumbnailURL: URL? {
        guard let text = thumbnail?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty,
              let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return nil }
        return url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        guard let id = container.lenientInt("id") else {
            let key = AnyCodingKey("id")
            if container.contains(key) {
                throw DecodingError.typeMismatch(Int.self, .init(
                    codingPath: decoder.codingPath + [key], debugDescription: "The product id is not an integer."))
            }
            throw DecodingError.keyNotFound(key, .init(
                codingPath: decoder.codingPath, debugDescription: "A product has no id."))
        }
        self.id = id
        vendorID = container.lenientInt("vendor_id", "vendorId", "vendorID")
        vendorName = container.lenientString("vendorName", "vendor_name")
        name = container.lenientString("name")
        description = container.lenientString("description")
        thumbnail = container.lenientString("thumbnail")
        currency = container.lenientString("currency")
        price = container.lenientDouble("price")
        bargainPrice = container.lenientDouble("bargain_price", "bargainPrice")
        discountedPrice = container.lenientDouble("discounted_price", "discountedPrice")
        stock = container.lenientInt("stock")
        createdAt = container.lenientString("created_at", "createdAt")
        issuedAt = container.lenientString("issued_at", "issuedAt")
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        try container.encode(id, forKey: AnyCodingKey("id"))
        try container.encodeIfPresent(vendorID, forKey: AnyCodingKey("vendor_id"))
        try container.encodeIfPresent(vendorName, forKey: AnyCodingKey("vendorName"))
        try container.encodeIfPresent(name, forKey: AnyCodingKey("name"))
        try container.encodeIfPresent(description, forKey: AnyCodingKey("description"))
        try container.encodeIfPresent(thumbnail, forKey: AnyCodingKey("thumbnail"))
        try container.encodeIfPresent(currency, forKey: AnyCodingKey("currency"))
        try container.encodeIfPresent(price, forKey: AnyCodingKey("price"))
        try container.encodeIfPresent(bargainPrice, forKey: AnyCodingKey("bargain_price"))
        try container.encodeIfPresent(discountedPrice, forKey: AnyCodingKey("discounted_price"))
        try container.encodeIfPresent(stock, forKey: AnyCodingKey("stock"))
        try container.encodeIfPresent(createdAt, forKey: AnyCodingKey("created_at"))
        try container.encodeIfPresent(issuedAt, forKey: AnyCodingKey("issued_at"))
    }
}
