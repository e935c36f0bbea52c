/// Serves a `FaultPlan`'s faults (`warm serve --faults`), counting requests per chosen URL for `xN`.
actor FaultInjector {
    private let plan: FaultPlan
    private var plannedRequests: [String: Int] = [:]

    init(plan: FaultPlan) {
        self.plan = plan
    }

    func take(path: String, query: [String: String]) -> CatalogFault? {
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
