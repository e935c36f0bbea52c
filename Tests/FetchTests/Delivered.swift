@testable import Crawl

/// Collects what a crawl delivers.
actor Delivered {
    private(set) var products: [Product] = []
    private(set) var batches = 0
    func add(_ batch: [Product]) {
        products += batch
        batches += 1
    }
    var ids: [Int] { products.map(\.id) }
}
