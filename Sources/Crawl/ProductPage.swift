import Foundation

/// One page of `GET /api/products` in either page shape; the derived fields (`lastPage`, `hasNext`...) are unused.
struct ProductPage: Sendable, Hashable, Decodable {
    var pageNo: Int
    var itemsPerPage: Int
    var totalCount: Int
    public var products: [Product]
    /// Entries of `pages` that were not products with an id (dropped).
    var rejectedProductCount: Int
    public var shape: PageShape

    static func decode(from body: Data) throws -> ProductPage {
        try JSONDecoder().decode(ProductPage.self, from: body)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let detected = PageShape.allCases.first { container.contains(AnyCodingKey($0.key("pageNo"))) }
        guard let detected else {
            throw DecodingError.keyNotFound(AnyCodingKey("pageNo"), .init(
                codingPath: decoder.codingPath,
                debugDescription: "Neither \"pageNo\" nor \"page_no\" is present, so this is not a product list page."))
        }
        // Each field in the detected shape first, then in the other, for servers that mix them.
        func names(_ camel: String) -> [String] {
            let snake = PageShape.snakeCase.key(camel)
            return detected == .camelCase ? [camel, snake] : [snake, camel]
        }
        func optionalInt(_ camel: String) -> Int? { container.lenient(names(camel)) }
        func requiredInt(_ camel: String) throws -> Int {
            guard let value = optionalInt(camel) else {
                throw DecodingError.keyNotFound(AnyCodingKey(names(camel)[0]), .init(
                    codingPath: decoder.codingPath, debugDescription: "The page has no integer \"\(names(camel)[0])\"."))
            }
            return value
        }

        let pageNo = try requiredInt("pageNo")
        let totalCount = try requiredInt("totalCount")
        guard (0...Self.maxTotalCount).contains(totalCount) else {
            throw ImplausibleCount(field: names("totalCount")[0], value: totalCount)
        }
        self.shape = detected
        self.pageNo = pageNo
        self.totalCount = totalCount
        // `limit` stands in for a missing page size; with neither, this throws.
        self.itemsPerPage = try optionalInt("itemsPerPage") ?? optionalInt("limit") ?? requiredInt("itemsPerPage")

        let entries = try container.decode([FailableProduct].self, forKey: AnyCodingKey("pages"))
        products = entries.compactMap(\.product)
        rejectedProductCount = entries.count - products.count
    }

    /// Without `totalCount + itemsPerPage - 1`, which overflows near `Int.max`.
    static func lastPage(totalCount: Int, itemsPerPage: Int) -> Int {
        guard itemsPerPage > 0, totalCount > 0 else { return 1 }
        return totalCount / itemsPerPage + (totalCount % itemsPerPage == 0 ? 0 : 1)
    }

    /// The crawler plans pages and tracks positions from `totalCount`, so a larger (or negative) count,
    /// a server bug or hostile, is refused as a page that does not parse.
    static let maxTotalCount = 10_000_000

    struct ImplausibleCount: Error, CustomStringConvertible {
        var field: String
        var value: Int
        var description: String {
            "the page declares \(field) \(value), outside 0...\(ProductPage.maxTotalCount)"
        }
    }
}

private struct FailableProduct: Decodable {
    var product: Product?

    init(from decoder: any Decoder) throws {
        product = try? Product(from: decoder)
    }
}
