import Crawl

struct ProductJSON: Encodable {
    var entry: CatalogEntry
    var baseURL: String
    var withImages: Bool

    private struct ImageJSON: Encodable {
        var id: Int
        var url: String
        var thumbnail_url: String
        var issued_at: String?
    }

    func encode(to encoder: any Encoder) throws {
        try entry.product.encode(to: encoder) // everything but the thumbnail (nil here) and images
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        if let path = entry.thumbnailPath {
            try container.encode(baseURL + "/" + path, forKey: AnyCodingKey("thumbnail"))
        } else {
            switch entry.missingThumbnail {
            case .absentKey: break
            case .null: try container.encodeNil(forKey: AnyCodingKey("thumbnail"))
            case .emptyString: try container.encode("", forKey: AnyCodingKey("thumbnail"))
            }
        }
        if withImages {
            let thumbnail = entry.thumbnailPath.map { baseURL + "/" + $0 } ?? ""
            let images = entry.imagePaths.enumerated().map { index, path in
                ImageJSON(id: entry.product.id * 10 + index, url: baseURL + "/" + path,
                          thumbnail_url: thumbnail, issued_at: entry.product.issuedAt)
            }
            try container.encode(images, forKey: AnyCodingKey("images"))
        }
    }
}

struct PageJSON: Encodable {
    var shape: PageShape
    var pageNo: Int
    var itemsPerPage: Int
    var totalCount: Int
    var products: [ProductJSON]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        let lastPage = max(1, (totalCount + itemsPerPage - 1) / itemsPerPage)
        func key(_ name: String) -> AnyCodingKey { AnyCodingKey(shape.key(name)) }
        let numbers = [("pageNo", pageNo), ("itemsPerPage", itemsPerPage), ("totalCount", totalCount),
                       ("offset", (pageNo - 1) * itemsPerPage), ("limit", itemsPerPage), ("lastPage", lastPage)]
        for (name, value) in numbers { try container.encode(value, forKey: key(name)) }
        try container.encode(pageNo < lastPage, forKey: key("hasNext"))
        try container.encode(pageNo > 1, forKey: key("hasPrev"))
        try container.encode(products, forKey: AnyCodingKey("pages"))
    }
}
