import Crawl
import Foundation
import Hummingbird

/// The catalog's mutable state: the product list (newest first, entries made in id order), which image
/// each path shows, and the pending list shift for tests.
package actor CatalogStore {
    let configuration: CatalogConfiguration
    let images: CatalogImageStore
    private let generator: CatalogGenerator
    private var entryByID: [Int: CatalogEntry] = [:]
    private var imageByPath: [String: UInt64] = [:]
    private var entries: [CatalogEntry] = [] // newest first
    private var baseURL = ""
    private var pendingShift: (afterPage: Int, count: Int)?

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
    package func insertNewest(count: Int) -> [Product] {
        var added: [CatalogEntry] = []
        for _ in 0..<max(0, count) {
            let id = entryByID.count + 1
            let known = entryByID
            let entry = generator.entry(id: id) { known[$0]?.thumbnailPath }
            entryByID[id] = entry
            for path in [entry.thumbnailPath].compactMap({ $0 }) + entry.imagePaths where imageByPath[path] == nil {
                imageByPath[path] = generator.imageKey(forPath: path)
            }
            added.append(entry)
        }
        entries.insert(contentsOf: added.reversed(), at: 0)
        return added.reversed().map(rendered)
    }

    package func scheduleInsert(count: Int, afterServingPage pageNo: Int) {
        pendingShift = (pageNo, count)
    }

    /// The JSON of list page `pageNo`, then the scheduled shift if this was its page.
    /// `productsOfPage` serves another page's products under this number (a page that repeats).
    func page(pageNo: Int, itemsPerPage: Int, productsOfPage: Int? = nil) throws -> ByteBuffer {
        let size = min(max(1, itemsPerPage), configuration.maxItemsPerPage)
        let start = ((productsOfPage ?? pageNo) - 1) * size
        let slice = start < entries.count ? entries[start..<min(entries.count, start + size)] : []
        let body = PageJSON(shape: configuration.pageShape, pageNo: pageNo, itemsPerPage: size,
                            totalCount: entries.count,
                            products: slice.map { ProductJSON(entry: $0, baseURL: baseURL, withImages: false) })
        let data = try JSONEncoder().encode(body)
        if let shift = pendingShift, shift.afterPage == pageNo {
            pendingShift = nil
            insertNewest(count: shift.count)
        }
        return ByteBuffer(bytes: data)
    }

    /// One product with its images, or nil for an unknown id.
    func detail(id: Int) throws -> ByteBuffer? {
        guard let entry = entryByID[id] else { return nil }
        return ByteBuffer(bytes: try JSONEncoder().encode(ProductJSON(entry: entry, baseURL: baseURL, withImages: true)))
    }

    /// `path` without the leading slash.
    func imageKey(atPath path: String) -> UInt64? {
        imageByPath[path]
    }

    /// Made now if need be; nil for an unknown path (without the leading slash).
    package func image(atPath path: String) async throws -> CatalogImage? {
        guard let key = imageByPath[path] else { return nil }
        return try await images.image(key: key)
    }

    package func products() -> [Product] {
        entries.map(rendered)
    }

    package var count: Int { entries.count }

    private func rendered(_ entry: CatalogEntry) -> Product {
        var product = entry.product
        product.thumbnail = entry.thumbnailPath.map { baseURL + "/" + $0 }
        return product
    }
}
