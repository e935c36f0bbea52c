/// The faults waiting to be served: rules a test added for a number of
/// matching requests, and a `FaultPlan` (`warm serve --faults`) that chooses
/// URLs by hash and counts requests per URL for transient faults.
actor FaultInjector {
    private struct Rule {
        var target: FaultTarget
        var fault: CatalogFault
        var remaining: Int
    }

    private var rules: [Rule] = []
    private(set) var plan: FaultPlan?
    /// Requests so far per URL a plan's rule chose (for `xN`).
    private var plannedRequests: [String: Int] = [:]

    func add(_ fault: CatalogFault, for target: FaultTarget, count: Int) {
        guard count > 0 else { return }
        rules.append(Rule(target: target, fault: fault, remaining: count))
    }

    func clear() { rules.removeAll() }

    /// Replaces the plan (nil: none) and starts its request counts afresh.
    func setPlan(_ plan: FaultPlan?) {
        self.plan = plan
        plannedRequests = [:]
    }

    /// The first fault for this request, used up by one; else the plan's.
    func take(path: String, query: [String: String]) -> CatalogFault? {
        if let index = rules.firstIndex(where: { $0.target.matches(path: path, query: query) }) {
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
        return .planned(rule.kind, plan: plan)
    }
}
