import Crawl
import Foundation
import Hummingbird

/// The catalog's mutable state: the product list (newest first), which
/// image each path shows, and the pending list shift for tests.
actor CatalogStore {
    let configuration: CatalogConfiguration
    let images: CatalogImageStore
    private var index: CatalogIndex
    private var entries: [CatalogEntry] // newest first
    private var baseURL = ""
    private var pendingShift: (afterPage: Int, count: Int)?

    init(configuration: CatalogConfiguration, images: CatalogImageStore) {
        self.configuration = configuration
        self.images = images
        var index = CatalogIndex(generator: CatalogGenerator(configuration: configuration))
        var made: [CatalogEntry] = []
        made.reserveCapacity(configuration.productCount)
        for _ in 0..<configuration.productCount { made.append(index.makeEntry()) }
        self.index = index
        self.entries = made.reversed()
    }

    func setBaseURL(_ url: String) { baseURL = url }

    /// Adds `count` products at the front of the list (as newly listed items) and returns them.
    @discardableResult
    func insertNewest(count: Int) -> [Product] {
        var added: [CatalogEntry] = []
        for _ in 0..<max(0, count) { added.append(index.makeEntry()) }
        entries.insert(contentsOf: added.reversed(), at: 0)
        return added.reversed().map(rendered)
    }

    func scheduleInsert(count: Int, afterServingPage pageNo: Int) {
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

    /// The JSON of one product with its images, or nil for an unknown id.
    func detail(id: Int) throws -> ByteBuffer? {
        guard let entry = index.entryByID[id] else { return nil }
        return ByteBuffer(bytes: try JSONEncoder().encode(ProductJSON(entry: entry, baseURL: baseURL, withImages: true)))
    }

    /// The key of the image a path (without the leading slash) shows, or nil.
    func imageKey(atPath path: String) -> UInt64? {
        index.imageByPath[path]
    }

    /// The image a path (without the leading slash) shows, made now if need be; nil for an unknown path.
    func image(atPath path: String) async throws -> CatalogImage? {
        guard let key = index.imageByPath[path] else { return nil }
        return try await images.image(key: key)
    }

    /// The list as it is now, newest first, thumbnails as absolute URLs.
    func products() -> [Product] {
        entries.map(rendered)
    }

    var count: Int { entries.count }

    private func rendered(_ entry: CatalogEntry) -> Product {
        var product = entry.product
        product.thumbnail = entry.thumbnailPath.map { baseURL + "/" + $0 }
        return product
    }
}
