import Foundation

/// One product's `GET /api/products/{id}`, reduced to what warming needs: its id and its carousel (`images`, in the
/// order the app shows them). Lenient like `Product`: only `id` is required; a missing or null `images` is an empty
/// carousel; entries are kept whatever they hold (`DetailImage`), so positions stay the app's carousel indexes.
///
/// Cost: the decoder holds the parsed body (bounded by the fetcher's body limit) and one `DetailImage` per entry.
public struct ProductDetail: Sendable, Hashable, Decodable {
    public var id: Int
    public var images: [DetailImage]

    public init(id: Int, images: [DetailImage] = []) {
        self.id = id
        self.images = images
    }

    public static func decode(from body: Data) throws -> ProductDetail {
        try JSONDecoder().decode(ProductDetail.self, from: body)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let idKey = AnyCodingKey("id")
        guard let id: Int = container.lenient(["id"]) else {
            if container.contains(idKey) {
                throw DecodingError.typeMismatch(Int.self, .init(
                    codingPath: decoder.codingPath + [idKey], debugDescription: "The product id is not an integer."))
            }
            throw DecodingError.keyNotFound(idKey, .init(
                codingPath: decoder.codingPath, debugDescription: "A product detail has no id."))
        }
        self.id = id
        // Not a list is not a carousel with a typo: the product fails, naming it, rather than warming nothing silently.
        images = try container.decodeIfPresent([DetailImage].self, forKey: AnyCodingKey("images")) ?? []
    }
}
