import WarmSupport

public enum FaultScope: String, Sendable, Hashable, CaseIterable {
    case image, page
}

/// One `SCOPE-KIND=SHARE[xN]` item of a `FaultPlan`.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public var scope: FaultScope
    public var kind: FaultKind
    /// 0...1.
    public var share: Double
    /// nil: every request of a chosen URL fails.
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

    func chooses(_ key: String, seed: UInt64) -> Bool {
        guard share > 0 else { return false }
        let hash = FNV1a.hash("\(scope.rawValue)-\(kind.name)|\(key)".utf8)
        let value = CatalogGenerator.mix(hash ^ CatalogGenerator.mix(seed))
        return Double(value >> 11) / Double(1 << 53) < share
    }

    public var description: String {
        let percent = share * 100
        let shareText = percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
        return "\(scope.rawValue)-\(kind.name)=\(shareText)" + (times.map { "x\($0)" } ?? "")
    }
}
