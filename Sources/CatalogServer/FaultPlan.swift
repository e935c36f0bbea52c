/// A fault mode for a whole catalog server (`warm serve --faults SPEC`): which
/// share of image and page URLs misbehave, how, and for how many requests.
///
/// SPEC is a comma-separated list of `SCOPE-KIND=SHARE[xN]`:
/// - SCOPE: `image` (thumbnail URLs) or `page` (list pages; page 1 is never
///   chosen, since without it nothing runs);
/// - KIND: an HTTP status (`503`, `500`, `404`...; `429` comes with
///   `Retry-After: 1`), `slow`, `stall`, `short`, `reset`, `html`,
///   `redirect-loop`, `endless`, and for pages only `garbage`, `shift`, `repeat`
///   (see `FaultKind`);
/// - SHARE: `5%` or `0.05` of the URLs (omitted: all);
/// - `xN`: only the first N requests of each chosen URL fail (a transient
///   fault); without it every request does.
///
/// Which URLs are chosen depends only on the seed, the scope and kind, and
/// the URL (its path, or the page number), so a re-run against the same
/// plan meets the same faults, and a larger share contains a smaller one.
public struct FaultPlan: Sendable, Hashable, CustomStringConvertible {
    public var rules: [FaultRule]
    public var seed: UInt64
    /// How long a `slow` body takes to trickle in (well within a client's timeout).
    public var slowBodySeconds: Double = 1
    /// How long a `stall` body stays silent after its first half (longer than a client's timeout).
    public var stallSeconds: Double = 600
    /// Products a `shift` page lists in front of the others once it has been served.
    public var shiftCount: Int = 3

    public init(rules: [FaultRule], seed: UInt64 = 1) {
        self.rules = rules
        self.seed = seed
    }

    /// Parses a SPEC as `warm serve --faults` takes it.
    public init(parsing spec: String, seed: UInt64 = 1) throws(FaultSpecError) {
        var rules: [FaultRule] = []
        for item in spec.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            rules.append(try FaultRule(parsing: item))
        }
        guard !rules.isEmpty else { throw .empty }
        self.init(rules: rules, seed: seed)
    }

    /// The rule that applies to `key` (an image path, or `page_no=N`), if any:
    /// the first whose share chooses it.
    public func rule(for scope: FaultScope, key: String) -> FaultRule? {
        if scope == .page, key == "page_no=1" { return nil }
        return rules.first { $0.scope == scope && $0.chooses(key, seed: seed) }
    }

    /// The rule for a thumbnail path such as `/thumbnails/20230323/<key>_thumb`.
    public func rule(forImagePath path: String) -> FaultRule? { rule(for: .image, key: path) }

    /// The rule for list page `pageNo`.
    public func rule(forPage pageNo: Int) -> FaultRule? { rule(for: .page, key: "page_no=\(pageNo)") }

    public var description: String { rules.map(\.description).joined(separator: ",") }
}
