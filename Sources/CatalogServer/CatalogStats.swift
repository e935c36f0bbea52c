/// What the server has answered so far, counted by `CatalogMiddleware`; tests read it (WarmTestSupport).
public actor CatalogStats {
    package var statistics = CatalogStatistics()

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

public struct CatalogStatistics: Sendable, Hashable {
    /// "products", "product", "health", "thumbnail", "other".
    public var requestsByRoute: [String: Int] = [:]
    /// Query left out.
    public var requestsByPath: [String: Int] = [:]
    public var pageRequests: [Int: Int] = [:]
    public var okResponses = 0
    public var notModifiedResponses = 0
    public var faultsServed = 0
    public var bytesSent = 0

    package init() {}
}
