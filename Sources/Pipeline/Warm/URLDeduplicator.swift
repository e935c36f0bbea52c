import Cache

/// The first product naming a URL schedules it; later ones add their ids. Memory: one entry per distinct URL, the
/// only state of a run that grows with the catalog.
actor URLDeduplicator {
    private var productIdsByURL: [CanonicalURL: [Int]] = [:]

    func claim(_ url: CanonicalURL, productId: Int) -> Bool {
        if productIdsByURL[url] != nil {
            productIdsByURL[url]!.append(productId)
            return false
        }
        productIdsByURL[url] = [productId]
        return true
    }

    func shared() -> [(url: CanonicalURL, productIds: [Int])] {
        productIdsByURL.filter { $0.value.count > 1 }.map { ($0.key, $0.value) }
    }

    /// For the prune: what the list still names.
    func allURLs() -> [CanonicalURL] { Array(productIdsByURL.keys) }
}
