/// How a URL a `FaultPlan` chose misbehaves.
public enum FaultKind: Sendable, Hashable {
    /// A short text body; 429 comes with `Retry-After: 1`.
    case status(Int)
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
    /// Pages only: served, then 3 new products are listed in front (once per chosen page).
    case shift
    /// Pages only: the products of the page before, under this page's number.
    case repeatPage

    private static let named: [FaultKind] = [.slowBody, .stalledBody, .shortBody, .reset, .html, .redirectLoop,
                                             .endlessBody, .garbage, .shift, .repeatPage]

    init?(name: String) {
        if let kind = Self.named.first(where: { $0.name == name }) {
            self = kind
            return
        }
        guard name.count == 3, let status = Int(name), (400...599).contains(status) else { return nil }
        self = .status(status)
    }

    public var name: String {
        switch self {
        case .status(let code): String(code)
        case .slowBody: "slow"
        case .stalledBody: "stall"
        case .shortBody: "short"
        case .reset: "reset"
        case .html: "html"
        case .redirectLoop: "redirect-loop"
        case .endlessBody: "endless"
        case .garbage: "garbage"
        case .shift: "shift"
        case .repeatPage: "repeat"
        }
    }

    var pagesOnly: Bool { [.garbage, .shift, .repeatPage].contains(self) }
}
