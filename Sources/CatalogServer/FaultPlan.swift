/// A fault mode for a whole catalog server (`warm serve --faults SPEC`). SPEC is a comma-separated list of
/// `SCOPE-KIND=SHARE[xN]`: SCOPE `image` or `page` (page 1 is never chosen: without it nothing runs); KIND
/// a `FaultKind` name; SHARE `5%` or `0.05` of the URLs (omitted: all); `xN`: only the first N requests of
/// each chosen URL fail. The URLs chosen depend only on the seed, scope, kind and URL, so a re-run meets
/// the same faults, and a larger share contains a smaller one.
public struct FaultPlan: Sendable, Hashable, CustomStringConvertible {
    public var rules: [FaultRule]
    public var seed: UInt64

    public init(rules: [FaultRule], seed: UInt64 = 1) {
        self.rules = rules
        self.seed = seed
    }

    public init(parsing spec: String, seed: UInt64 = 1) throws(FaultSpecError) {
        var rules: [FaultRule] = []
        for item in spec.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            rules.append(try FaultRule(parsing: item))
        }
        guard !rules.isEmpty else { throw .empty }
        self.init(rules: rules, seed: seed)
    }

    /// The first rule whose share chooses `key` (an image path, or `page_no=N`).
    package func rule(for scope: FaultScope, key: String) -> FaultRule? {
        if scope == .page, key == "page_no=1" { return nil }
        return rules.first { $0.scope == scope && $0.chooses(key, seed: seed) }
    }

    public var description: String { rules.map(\.description).joined(separator: ",") }
}
