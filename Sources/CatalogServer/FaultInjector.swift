/// The faults waiting to be served: those a test added for a number of requests to a path whose query holds
/// `query`, then a `FaultPlan`'s (`warm serve --faults`), which counts requests per chosen URL for `xN`.
package actor FaultInjector {
    private struct Rule {
        var path: String
        var query: [String: String]
        var fault: CatalogFault
        var remaining: Int
    }

    private var rules: [Rule] = []
    private var plan: FaultPlan?
    private var plannedRequests: [String: Int] = [:]

    package func add(_ fault: CatalogFault, path: String, query: [String: String], count: Int) {
        guard count > 0 else { return }
        rules.append(Rule(path: path, query: query, fault: fault, remaining: count))
    }

    /// Replaces the plan (nil: none) and starts its request counts afresh.
    package func setPlan(_ plan: FaultPlan?) {
        self.plan = plan
        plannedRequests = [:]
    }

    /// The first fault for this request, used up by one; else the plan's.
    func take(path: String, query: [String: String]) -> CatalogFault? {
        if let index = rules.firstIndex(where: { rule in
            rule.path == path && rule.query.allSatisfy { query[$0.key] == $0.value }
        }) {
            let fault = rules[index].fault
            rules[index].remaining -= 1
            if rules[index].remaining == 0 { rules.remove(at: index) }
            return fault
        }
        guard let plan else { return nil }
        let scope: FaultScope, key: String
        if path == "/api/products" {
            scope = .page
            key = "page_no=\(query["page_no"].flatMap { Int($0) } ?? 1)"
        } else if path.hasPrefix("/thumbnails/") {
            scope = .image
            key = path
        } else {
            return nil
        }
        guard let rule = plan.rule(for: scope, key: key) else { return nil }
        plannedRequests[key, default: 0] += 1
        if let times = rule.times, plannedRequests[key, default: 0] > times { return nil }
        return rule.kind
    }
}
