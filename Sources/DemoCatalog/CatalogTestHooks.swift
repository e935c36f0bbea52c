/// The faults a test added for a number of requests to a path whose query holds `query`, then a plan's; and the
/// counts of what the server answered.
public actor CatalogTestHooks: CatalogHooks {
    private struct Rule {
        var path: String
        var query: [String: String]
        var fault: CatalogFault
        var remaining: Int
    }

    private var rules: [Rule] = []
    private var plan: FaultInjector?
    private var statistics = CatalogStatistics()

    public init() {}

    func add(_ fault: CatalogFault, path: String, query: [String: String], count: Int) {
        guard count > 0 else { return }
        rules.append(Rule(path: path, query: query, fault: fault, remaining: count))
    }

    func setPlan(_ plan: FaultPlan?) {
        self.plan = plan.map(FaultInjector.init)
    }

    /// The first rule's fault for this request, used up by one; else the plan's.
    public func fault(path: String, query: [String: String]) async -> CatalogFault? {
        if let index = rules.firstIndex(where: { rule in
            rule.path == path && rule.query.allSatisfy { query[$0.key] == $0.value }
        }) {
            let fault = rules[index].fault
            rules[index].remaining -= 1
            if rules[index].remaining == 0 { rules.remove(at: index) }
            return fault
        }
        return await plan?.take(path: path, query: query)
    }

    public func answered(path: String, query: [String: String], status: Int, bodyBytes: Int, fault: Bool) {
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

    func snapshot() -> CatalogStatistics { statistics }

    /// Starts the counts again from zero (between phases of a test).
    func reset() { statistics = CatalogStatistics() }
}
