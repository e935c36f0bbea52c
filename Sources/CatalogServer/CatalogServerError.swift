public enum CatalogServerError: Error, Sendable, CustomStringConvertible {
    /// Usually because the address was taken.
    case didNotStart(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .didNotStart(let host, let port, let reason):
            return "The catalog server could not listen on \(host):\(port): \(reason)."
        }
    }
}
