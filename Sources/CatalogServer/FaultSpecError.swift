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
