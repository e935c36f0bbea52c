/// A misbehaviour the catalog server can be told to show, for tests of the
/// client's resilience. New kinds go here as cases; matching and counting
/// stay in `FaultInjector`.
public indirect enum CatalogFault: Sendable, Hashable {
    /// Answer with this status and no useful body; `retryAfter` is sent as
    /// `Retry-After` verbatim (seconds, or an HTTP date) when given.
    case status(Int, retryAfter: String? = nil)
    /// Wait this long, then answer normally (for timeouts).
    case delay(seconds: Double)
    /// Wait this long, then serve `then` (a slow failure).
    case delayed(seconds: Double, then: CatalogFault)
    /// Answer 200 with this body instead (e.g. a list page that does not parse).
    case body(String, contentType: String = "application/json")
    /// The real answer, its body trickled in 8 pieces over this long.
    case slowBody(seconds: Double)
    /// The real answer's head and half its body, then silence for this long, then the connection closes.
    case stalledBody(seconds: Double)
    /// The real answer's `Content-Length`, half its body, then the connection closes.
    case shortBody
    /// Close the connection without answering.
    case reset
    /// 302 to the same URL with a `hop` parameter one higher, without end.
    case redirectLoop
    /// 200 without `Content-Length`, then body bytes until the client goes away.
    case endlessBody
    /// The real answer, then `count` new products are listed in front (pages).
    case shiftAfter(count: Int)
    /// The products of the page before, under this page's number (pages).
    case repeatPreviousPage

    /// The fault a plan's rule serves.
    static func planned(_ kind: FaultKind, plan: FaultPlan) -> CatalogFault {
        switch kind {
        case .status(let code): return .status(code, retryAfter: code == 429 ? "1" : nil)
        case .slowBody: return .slowBody(seconds: plan.slowBodySeconds)
        case .stalledBody: return .stalledBody(seconds: plan.stallSeconds)
        case .shortBody: return .shortBody
        case .reset: return .reset
        case .html:
            return .body("<!DOCTYPE html>\n<html><head><title>503 Service Temporarily Unavailable</title></head>"
                         + "<body><h1>Service Temporarily Unavailable</h1></body></html>\n", contentType: "text/html; charset=utf-8")
        case .redirectLoop: return .redirectLoop
        case .endlessBody: return .endlessBody
        case .garbage: return .body("{\"pageNo\": 2, \"itemsPerPage\": 20, \"totalCount\": 1336, \"pages\": [{\"id\": 17, \"name\": \"Vint")
        case .shift: return .shiftAfter(count: plan.shiftCount)
        case .repeatPage: return .repeatPreviousPage
        }
    }
}

/// Which requests a fault applies to: an exact path, and query items that
/// must all be present with these values (others may be there too).
public struct FaultTarget: Sendable, Hashable {
    public var path: String
    public var query: [String: String]

    public init(path: String, query: [String: String] = [:]) {
        self.path = path
        self.query = query
    }

    func matches(path: String, query: [String: String]) -> Bool {
        path == self.path && self.query.allSatisfy { query[$0.key] == $0.value }
    }
}
