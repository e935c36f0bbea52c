/// A misbehaviour the catalog server can show in place of an answer: one of `--faults`' kinds, or one a test injects.
public indirect enum CatalogFault: Sendable, Hashable {
    case planned(FaultKind)
    /// No useful body; `retryAfter` is sent as `Retry-After` verbatim when given.
    case status(Int, retryAfter: String? = nil)
    /// Wait, then answer normally (for timeouts).
    case delay(seconds: Double)
    /// Wait, then serve `then` (a slow failure).
    case delayed(seconds: Double, then: CatalogFault)
    /// 200 with this body instead (e.g. a list page that does not parse).
    case body(String, contentType: String = "application/json")
}
