import Foundation

/// One page of `GET /api/products`, decoded from either page shape.
///
/// Required: the page number, the total count and the `pages` list (the page
/// size too, unless `limit` stands in for it). Missing derived fields
/// (`lastPage`, `hasNext`, `hasPrev`) are computed. Products without a usable
/// id are dropped and counted in `rejectedProductCount`.
public struct ProductPage: Sendable, Hashable, Decodable {
    public var pageNo: Int
    public var itemsPerPage: Int
    public var totalCount: Int
    public var offset: Int?
    public var limit: Int?
    public var lastPage: Int
    public var hasNext: Bool
    public var hasPrev: Bool
    public var products: [Product]
    /// Entries of `pages` that were not products with an id.
    public var rejectedProductCount: Int
    /// Which spelling the page fields used.
    public var shape: PageShape

    public init(pageNo: Int, itemsPerPage: Int, totalCount: Int, products: [Product],
                shape: PageShape = .camelCase) {
        self.pageNo = pageNo
        self.itemsPerPage = itemsPerPage
        self.totalCount = totalCount
        self.offset = (pageNo - 1) * itemsPerPage
        self.limit = itemsPerPage
        self.lastPage = Self.lastPage(totalCount: totalCount, itemsPerPage: itemsPerPage)
        self.hasNext = pageNo < lastPage
        self.hasPrev = pageNo > 1
        self.products = products
        self.rejectedProductCount = 0
        self.shape = shape
    }

    /// Decodes a page from a response body (JSON).
    public static func decode(from body: Data) throws -> ProductPage {
        try JSONDecoder().decode(ProductPage.self, from: body)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let detected: PageShape
        if container.contains(AnyCodingKey("pageNo")) {
            detected = .camelCase
        } else if container.contains(AnyCodingKey("page_no")) {
            detected = .snakeCase
        } else {
            throw DecodingError.keyNotFound(AnyCodingKey("pageNo"), .init(
                codingPath: decoder.codingPath,
                debugDescription: "Neither \"pageNo\" nor \"page_no\" is present, so this is not a product list page."))
        }
        // Each field in the detected shape first, then in the other, for servers that mix them.
        func names(_ camel: String) -> [String] {
            let snake = PageShape.snakeCase.key(camel)
            return detected == .camelCase ? [camel, snake] : [snake, camel]
        }
        func requiredInt(_ camel: String) throws -> Int {
            let candidates = names(camel)
            for name in candidates {
                if let value = container.lenientInt(name) { return value }
            }
            throw DecodingError.keyNotFound(AnyCodingKey(candidates[0]), .init(
                codingPath: decoder.codingPath,
                debugDescription: "The page has no integer \"\(candidates[0])\"."))
        }
        func optionalInt(_ camel: String) -> Int? {
            names(camel).lazy.compactMap { container.lenientInt($0) }.first
        }
        func optionalBool(_ camel: String) -> Bool? {
            names(camel).lazy.compactMap { container.lenientBool($0) }.first
        }

        let pageNo = try requiredInt("pageNo")
        let totalCount = try requiredInt("totalCount")
        guard (0...Self.maxTotalCount).contains(totalCount) else {
            throw ImplausibleCount(field: names("totalCount")[0], value: totalCount)
        }
        let limit = optionalInt("limit")
        // `limit` stands in for a missing page size; with neither, this throws.
        let itemsPerPage = try optionalInt("itemsPerPage") ?? limit ?? requiredInt("itemsPerPage")
        let lastPage = optionalInt("lastPage") ?? Self.lastPage(totalCount: totalCount, itemsPerPage: itemsPerPage)
        self.shape = detected
        self.pageNo = pageNo
        self.totalCount = totalCount
        self.offset = optionalInt("offset")
        self.limit = limit
        self.itemsPerPage = itemsPerPage
        self.lastPage = lastPage
        self.hasNext = optionalBool("hasNext") ?? (pageNo < lastPage)
        self.hasPrev = optionalBool("hasPrev") ?? (pageNo > 1)

        let entries = try container.decode([FailableProduct].self, forKey: AnyCodingKey("pages"))
        products = entries.compactMap(\.product)
        rejectedProductCount = entries.count - products.count
    }

    /// Pages needed for `totalCount` products; written without `totalCount +
    /// itemsPerPage - 1`, which overflows for counts near `Int.max`.
    static func lastPage(totalCount: Int, itemsPerPage: Int) -> Int {
        guard itemsPerPage > 0, totalCount > 0 else { return 1 }
        return totalCount / itemsPerPage + (totalCount % itemsPerPage == 0 ? 0 : 1)
    }

    /// The longest list a page may declare: 10 million products. The crawler
    /// plans its pages and tracks list positions from `totalCount`, so a larger
    /// (or negative) count, whether a server bug or hostile, is refused as a
    /// page that does not parse rather than planned.
    public static let maxTotalCount = 10_000_000

    /// A page count outside what the crawler accepts.
    struct ImplausibleCount: Error, CustomStringConvertible {
        var field: String
        var value: Int
        var description: String {
            "the page declares \(field) \(value), outside 0...\(ProductPage.maxTotalCount)"
        }
    }
}

/// A list entry that is a product, or nil when it is not one (no id).
private struct FailableProduct: Decodable {
    var product: Product?

    init(from decoder: any Decoder) throws {
        product = try? Product(from: decoder)
    }
}
