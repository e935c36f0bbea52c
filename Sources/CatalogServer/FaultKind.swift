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
