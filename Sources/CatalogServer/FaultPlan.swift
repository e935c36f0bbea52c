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

/// What a `FaultRule` applies to.
public enum FaultScope: String, Sendable, Hashable, CaseIterable {
    case image, page
}

/// One `SCOPE-KIND=SHARE[xN]` item of a `FaultPlan`.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public var scope: FaultScope
    public var kind: FaultKind
    /// Share of URLs chosen, 0...1.
    public var share: Double
    /// Requests of each chosen URL that fail; nil: all of them.
    public var times: Int?

    public init(_ scope: FaultScope, _ kind: FaultKind, share: Double = 1, times: Int? = nil) {
        self.scope = scope
        self.kind = kind
        self.share = min(1, max(0, share))
        self.times = times.map { max(1, $0) }
    }

    init(parsing item: String) throws(FaultSpecError) {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        let name = parts[0].lowercased()
        guard let dash = name.firstIndex(of: "-"), let scope = FaultScope(rawValue: String(name[..<dash])) else {
            throw .unknownKind(item)
        }
        guard let kind = FaultKind(name: String(name[name.index(after: dash)...])) else { throw .unknownKind(item) }
        if scope == .image && kind.pagesOnly { throw .pagesOnly(item) }
        var share = 1.0, times: Int?
        if parts.count == 2 {
            var text = Substring(parts[1].lowercased())
            if let x = text.firstIndex(of: "x") {
                guard let count = Int(text[text.index(after: x)...]), count >= 1 else { throw .badShare(item) }
                times = count
                text = text[..<x]
            }
            if text.hasSuffix("%") {
                guard let percent = Double(text.dropLast()), (0...100).contains(percent) else { throw .badShare(item) }
                share = percent / 100
            } else {
                guard let fraction = Double(text), (0...1).contains(fraction) else { throw .badShare(item) }
                share = fraction
            }
        }
        self.init(scope, kind, share: share, times: times)
    }

    /// Whether this rule's share picks `key`: a SplitMix64 hash of seed, rule and key, compared with the share.
    func chooses(_ key: String, seed: UInt64) -> Bool {
        guard share > 0 else { return false }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a over the text, then mixed
        for byte in "\(scope.rawValue)-\(kind.name)|\(key)".utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let value = CatalogGenerator.mix(hash ^ CatalogGenerator.mix(seed))
        return Double(value >> 11) / Double(1 << 53) < share
    }

    public var description: String {
        let percent = share * 100
        let shareText = percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        return "\(scope.rawValue)-\(kind.name)=\(shareText)" + (times.map { "x\($0)" } ?? "")
    }
}

/// How a chosen URL misbehaves.
public enum FaultKind: Sendable, Hashable {
    /// This status and a short text body; 429 comes with `Retry-After: 1`.
    case status(Int)
    /// The real body, trickled in over `FaultPlan.slowBodySeconds`.
    case slowBody
    /// Half the body, then silence for `FaultPlan.stallSeconds`, then the connection closes.
    case stalledBody
    /// `Content-Length` of the whole body, half of it, then the connection closes.
    case shortBody
    /// The connection is closed before any response.
    case reset
    /// An HTML error page served with 200.
    case html
    /// 302 to the same URL with a growing `hop` parameter, without end.
    case redirectLoop
    /// 200 without `Content-Length` and a body that never ends.
    case endlessBody
    /// Pages only: 200 with JSON cut off in the middle.
    case garbage
    /// Pages only: served normally, then `FaultPlan.shiftCount` new products
    /// are listed in front, pushing every product back (once per chosen page).
    case shift
    /// Pages only: the products of the page before, under this page's number.
    case repeatPage

    init?(name: String) {
        switch name {
        case "slow": self = .slowBody
        case "stall": self = .stalledBody
        case "short": self = .shortBody
        case "reset": self = .reset
        case "html": self = .html
        case "redirect-loop": self = .redirectLoop
        case "endless": self = .endlessBody
        case "garbage": self = .garbage
        case "shift": self = .shift
        case "repeat": self = .repeatPage
        default:
            guard name.count == 3, let status = Int(name), (400...599).contains(status) else { return nil }
            self = .status(status)
        }
    }

    public var name: String {
        switch self {
        case .status(let code): return String(code)
        case .slowBody: return "slow"
        case .stalledBody: return "stall"
        case .shortBody: return "short"
        case .reset: return "reset"
        case .html: return "html"
        case .redirectLoop: return "redirect-loop"
        case .endlessBody: return "endless"
        case .garbage: return "garbage"
        case .shift: return "shift"
        case .repeatPage: return "repeat"
        }
    }

    var pagesOnly: Bool {
        switch self {
        case .garbage, .shift, .repeatPage: return true
        default: return false
        }
    }
}

/// Why a `--faults` SPEC was refused.
public enum FaultSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    case empty
    case unknownKind(String)
    case pagesOnly(String)
    case badShare(String)

    public var description: String {
        let kinds = "an HTTP status (400-599), slow, stall, short, reset, html, redirect-loop, endless; for pages also garbage, shift, repeat"
        switch self {
        case .empty: return "The fault spec names no fault; give e.g. image-503=5%,page-garbage=10%."
        case .unknownKind(let item): return "\"\(item)\" is not image-KIND or page-KIND with KIND one of: \(kinds)."
        case .pagesOnly(let item): return "\"\(item)\": garbage, shift and repeat apply to pages only (page-...)."
        case .badShare(let item): return "\"\(item)\": the share must be a percentage (5%) or a fraction (0.05), optionally followed by xN (the first N requests)."
        }
    }
}
