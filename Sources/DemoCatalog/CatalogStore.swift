import Crawl
import Foundation
import Hummingbird

/// The catalog's mutable state: the product list (newest first, entries made in id order) and which image
/// each path shows.
actor CatalogStore {
    let configuration: CatalogConfiguration
    let images: CatalogImageStore
    private let generator: CatalogGenerator
    /// `entries[id - 1]`; the list shows them newest first.
    private var entries: [CatalogEntry] = []
    private var imageByPath: [String: UInt64] = [:]
    private var baseURL = ""

    /// Async, so that it is isolated and can list the products at start.
    init(configuration: CatalogConfiguration, images: CatalogImageStore) async {
        self.configuration = configuration
        self.images = images
        self.generator = CatalogGenerator(configuration: configuration)
        insertNewest(count: configuration.productCount)
    }

    func setBaseURL(_ url: String) { baseURL = url }

    /// Adds `count` products at the front of the list (as newly listed items) and returns them.
    @discardableResult
    func insertNewest(count: Int) -> [Product] {
        let first = entries.count
        for _ in 0..<max(0, count) {
            let entry = generator.entry(id: entries.count + 1) { entries[$0 - 1].thumbnailPath }
            entries.append(entry)
            for path in [entry.thumbnailPath].compactMap({ $0 }) + entry.imagePaths where imageByPath[path] == nil {
                imageByPath[path] = generator.imageKey(forPath: path)
            }
        }
        return entries[first...].reversed().map(rendered)
    }

    /// The JSON of list page `pageNo`; `productsOfPage` serves another page's products under this number (a page
    /// that repeats).
    func page(pageNo: Int, itemsPerPage: Int, productsOfPage: Int? = nil) throws -> ByteBuffer {
        let size = min(max(1, itemsPerPage), configuration.maxItemsPerPage)
        let start = ((productsOfPage ?? pageNo) - 1) * size
        let positions = start < entries.count ? start..<min(entries.count, start + size) : 0..<0
        let body = PageJSON(shape: configuration.pageShape, pageNo: pageNo, itemsPerPage: size,
                            totalCount: entries.count, products: positions.map { position in
            ProductJSON(entry: entries[entries.count - 1 - position], baseURL: baseURL, withImages: false)
        })
        return ByteBuffer(bytes: try JSONEncoder().encode(body))
    }

    /// One product with its images, or nil for an unknown id.
    func detail(id: Int) throws -> ByteBuffer? {
        guard entries.indices.contains(id - 1) else { return nil }
        let json = ProductJSON(entry: entries[id - 1], baseURL: baseURL, withImages: true)
        return ByteBuffer(bytes: try JSONEncoder().encode(json))
    }

    /// `path` without the leading slash.
    func imageKey(atPath path: String) -> UInt64? {
        imageByPath[path]
    }

    /// Made now if need be; nil for an unknown path (without the leading slash).
    func image(atPath path: String) async throws -> CatalogImage? {
        guard let key = imageByPath[path] else { return nil }
        return try await images.image(key: key, upload: CatalogGenerator.isUpload(path: path))
    }

    func products() -> [Product] {
        entries.reversed().map(rendered)
    }

    private func rendered(_ entry: CatalogEntry) -> Product {
        var product = entry.product
        product.thumbnail = entry.thumbnailPath.map { baseURL + "/" + $0 }
        return product
    }
}
