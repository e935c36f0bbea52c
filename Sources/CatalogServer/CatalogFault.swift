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
