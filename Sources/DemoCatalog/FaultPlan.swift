import WarmSupport

/// A misbehaviour the catalog server shows in place of an answer: one of `--faults`' kinds (those with a
/// `name`), or one a test injects (`delay`, `body`, `status` with any `Retry-After`).
public indirect enum CatalogFault: Sendable, Hashable {
    /// A short text body; `retryAfter` is sent as `Retry-After` verbatim (`--faults` sends 1 with 429).
    case status(Int, retryAfter: String? = nil)
    /// The real body in 8 pieces over a second.
    case slowBody
    /// Half the body, then silence for 10 minutes, then the connection closes.
    case stalledBody
    /// `Content-Length` of the whole body, half of it, then the connection closes.
    case shortBody
    /// The connection closes before any response.
    case reset
    /// An HTML error page served with 200.
    case html
    /// 302 to the same URL with a growing `hop` parameter, without end.
    case redirectLoop
    /// 200 without `Content-Length`, a body that never ends.
    case endlessBody
    /// Pages only: JSON cut off in the middle.
    case garbage
    /// Pages only: served, then `count` new products are listed in front (`--faults`: 3, once per chosen page).
    case shift(count: Int = 3)
    /// Pages only: the products of the page before, under this page's number.
    case repeatPage
    /// Wait, then answer normally (for timeouts), or serve `then` (a slow failure).
    case delay(seconds: Double, then: CatalogFault? = nil)
    /// 200 with this body instead (e.g. a list page that does not parse).
    case body(String, contentType: String = "application/json")

    /// The `--faults` KINDs of the named faults.
    private static let names: [(fault: CatalogFault, name: String)] = [
        (.slowBody, "slow"), (.stalledBody, "stall"), (.shortBody, "short"), (.reset, "reset"), (.html, "html"),
        (.redirectLoop, "redirect-loop"), (.endlessBody, "endless"), (.garbage, "garbage"), (.shift(), "shift"),
        (.repeatPage, "repeat"),
    ]

    init?(name: String) {
        if let named = Self.names.first(where: { $0.name == name }) {
            self = named.fault
            return
        }
        guard name.count == 3, let status = Int(name), (400...599).contains(status) else { return nil }
        self = .status(status, retryAfter: status == 429 ? "1" : nil)
    }

    /// The `--faults` KIND; test-only faults have none.
    var name: String? {
        if case .status(let code, _) = self { return String(code) }
        return Self.names.first { $0.fault == self }?.name
    }

    var pagesOnly: Bool { [.garbage, .shift(), .repeatPage].contains(self) }
}

enum FaultScope: String, Sendable, Hashable, CaseIterable {
    case image, page
}

/// `warm serve --faults SPEC` (syntax in docs/faults-and-hostile-input.md). The URLs chosen depend only on
/// the seed, scope, kind and URL: a re-run meets the same faults, and a larger share contains a smaller one.
public struct FaultPlan: Sendable, Hashable, CustomStringConvertible {
    var rules: [FaultRule]
    var seed: UInt64

    /// `warm serve --fault-seed`'s default.
    public static let defaultSeed: UInt64 = 1

    public init(parsing spec: String, seed: UInt64 = defaultSeed) throws(FaultSpecError) {
        rules = []
        for item in spec.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            rules.append(try FaultRule(parsing: item))
        }
        guard !rules.isEmpty else { throw .empty }
        self.seed = seed
    }

    /// The first rule whose share chooses `key` (an image path, or `page_no=N`).
    func rule(for scope: FaultScope, key: String) -> FaultRule? {
        if scope == .page, key == "page_no=1" { return nil }
        return rules.first { $0.scope == scope && $0.chooses(key, seed: seed) }
    }

    public var description: String { rules.map(\.description).joined(separator: ",") }

    /// The rule that chooses image `path` (a test's view of `rule(for:key:)`).
    func rule(forImagePath path: String) -> FaultRule? { rule(for: .image, key: path) }
    /// The rule that chooses list page `pageNo`.
    func rule(forPage pageNo: Int) -> FaultRule? { rule(for: .page, key: "page_no=\(pageNo)") }
}

/// One `SCOPE-KIND=SHARE[xN]` item of a `FaultPlan`.
struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    var scope: FaultScope
    var kind: CatalogFault
    /// 0...1.
    var share: Double = 1
    /// nil: every request of a chosen URL fails.
    var times: Int?

    init(parsing item: String) throws(FaultSpecError) {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        let name = (parts.first ?? "").lowercased() // "=" alone splits into nothing
        guard let dash = name.firstIndex(of: "-"), let scope = FaultScope(rawValue: String(name[..<dash])),
              let kind = CatalogFault(name: String(name[name.index(after: dash)...])) else { throw .unknownKind(item) }
        if scope == .image && kind.pagesOnly { throw .pagesOnly(item) }
        self.scope = scope
        self.kind = kind
        if parts.count == 2 {
            var text = Substring(parts[1].lowercased())
            if let x = text.firstIndex(of: "x") {
                guard let count = Int(text[text.index(after: x)...]), count >= 1 else { throw .badShare(item) }
                times = count
                text = text[..<x]
            }
            let percent = text.hasSuffix("%")
            guard let value = Double(percent ? text.dropLast() : text), (0...(percent ? 100 : 1)).contains(value) else {
                throw .badShare(item)
            }
            share = percent ? value / 100 : value
        }
    }

    func chooses(_ key: String, seed: UInt64) -> Bool {
        guard share > 0 else { return false }
        let hash = SHA256Hex.lowWord(of: "\(scope.rawValue)-\(kind.name ?? "")|\(key)")
        let value = CatalogGenerator.mix(hash ^ CatalogGenerator.mix(seed))
        return Double(value >> 11) / Double(1 << 53) < share
    }

    var description: String {
        let percent = share * 100
        let shareText = percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        return "\(scope.rawValue)-\(kind.name ?? "")=\(shareText)" + (times.map { "x\($0)" } ?? "")
    }
}

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
