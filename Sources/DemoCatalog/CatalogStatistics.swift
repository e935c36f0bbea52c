/// What a catalog server started with `CatalogTestHooks` answered, counted.
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

    public func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    public func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}
