/// What the server has answered so far, for tests and the demo's summary.
public struct CatalogStatistics: Sendable, Hashable {
    /// Requests per route: "products", "product", "health", "thumbnail", "other".
    public var requestsByRoute: [String: Int] = [:]
    /// Requests per path (query left out), e.g. one thumbnail's.
    public var requestsByPath: [String: Int] = [:]
    /// List requests per `page_no`.
    public var pageRequests: [Int: Int] = [:]
    public var okResponses = 0
    public var notModifiedResponses = 0
    /// Responses with a status of 400 or more (injected faults included).
    public var errorResponses = 0
    /// Responses produced by an injected fault.
    public var faultsServed = 0
    /// Body bytes sent.
    public var bytesSent = 0

    public init() {}

    public var totalRequests: Int { requestsByRoute.values.reduce(0, +) }

    public func requests(route: String) -> Int { requestsByRoute[route, default: 0] }
    public func requests(path: String) -> Int { requestsByPath[path, default: 0] }
}
