/// Why a catalog server did not start.
public enum CatalogServerError: Error, Sendable, CustomStringConvertible {
    /// The server stopped before it listened, usually because the address was taken.
    case didNotStart(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .didNotStart(let host, let port, let reason):
            return "The catalog server could not listen on \(host):\(port): \(reason)."
        }
    }
}
