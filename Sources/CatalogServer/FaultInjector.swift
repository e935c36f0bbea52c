/// The faults waiting to be served, each for a number of matching requests.
actor FaultInjector {
    private struct Rule {
        var target: FaultTarget
        var fault: CatalogFault
        var remaining: Int
    }

    private var rules: [Rule] = []

    func add(_ fault: CatalogFault, for target: FaultTarget, count: Int) {
        guard count > 0 else { return }
        rules.append(Rule(target: target, fault: fault, remaining: count))
    }

    func clear() { rules.removeAll() }

    /// The first fault for this request, used up by one.
    func take(path: String, query: [String: String]) -> CatalogFault? {
        guard let index = rules.firstIndex(where: { $0.target.matches(path: path, query: query) }) else { return nil }
        let fault = rules[index].fault
        rules[index].remaining -= 1
        if rules[index].remaining == 0 { rules.remove(at: index) }
        return fault
    }
}
