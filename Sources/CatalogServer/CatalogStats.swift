public actor CatalogStats {
    package var statistics = CatalogStatistics()

    public func snapshot() -> CatalogStatistics { statistics }

    func record(path: String, query: [String: String], status: Int, bodyBytes: Int, fault: Bool) {
        let route = switch path {
        case "/api/products": "products"
        case "/healthChecker": "health"
        case _ where path.hasPrefix("/api/products/"): "product"
        case _ where path.hasPrefix("/thumbnails/"): "thumbnail"
        default: "other"
        }
        statistics.requestsByRoute[route, default: 0] += 1
        statistics.requestsByPath[path, default: 0] += 1
        if route == "products" { statistics.pageRequests[query["page_no"].flatMap { Int($0) } ?? 1, default: 0] += 1 }
        switch status {
        case 200...299: statistics.okResponses += 1
        case 304: statistics.notModifiedResponses += 1
        default: break
        }
        if fault { statistics.faultsServed += 1 }
        statistics.bytesSent += bodyBytes
    }
}
