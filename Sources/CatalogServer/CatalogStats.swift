/// Counts requests and responses as the server answers them.
public actor CatalogStats {
    private var statistics = CatalogStatistics()

    public init() {}

    /// A copy of the counts so far.
    public func snapshot() -> CatalogStatistics { statistics }

    /// Starts the counts again from zero (between phases of a test).
    public func reset() { statistics = CatalogStatistics() }

    func record(route: String, path: String, pageNo: Int?, status: Int, bodyBytes: Int, fault: Bool) {
        statistics.requestsByRoute[route, default: 0] += 1
        statistics.requestsByPath[path, default: 0] += 1
        if let pageNo { statistics.pageRequests[pageNo, default: 0] += 1 }
        switch status {
        case 200...299: statistics.okResponses += 1
        case 304: statistics.notModifiedResponses += 1
        case 400...: statistics.errorResponses += 1
        default: break
        }
        if fault { statistics.faultsServed += 1 }
        statistics.bytesSent += bodyBytes
    }
}
