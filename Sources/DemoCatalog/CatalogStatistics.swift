/// What a catalog server started with `CatalogTestHooks` answered, counted.
struct CatalogStatistics: Sendable, Hashable {
    /// "products", "product", "health", "thumbnail", "other".
    var requestsByRoute: [String: Int] = [:]
    /// Query left out.
    var requestsByPath: [String: Int] = [:]
    var pageRequests: [Int: Int] = [:]
    var okResponses = 0
    var notModifiedResponses = 0
    var faultsServed = 0
    var bytesSent = 0

    func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}
