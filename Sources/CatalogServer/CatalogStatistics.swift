/// What the server has answered so far, for tests and the demo's summary.
public struct CatalogStatistics: Sendable, Hashable {
    /// "products", "product", "health", "thumbnail", "other".
    public var requestsByRoute: [String: Int] = [:]
    /// Query left out.
    public var requestsByPath: [String: Int] = [:]
    public var pageRequests: [Int: Int] = [:]
    public var okResponses = 0
    public var notModifiedResponses = 0
    /// 400 or more, injected faults included.
    public var errorResponses = 0
    public var faultsServed = 0
    public var bytesSent = 0

    public init() {}

    public var totalRequests: Int { requestsByRoute.values.reduce(0, +) }

    public func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    public func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}
