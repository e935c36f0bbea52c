/// Why the origin could not run.
public enum OriginError: Error, Sendable, CustomStringConvertible {
    case didNotStart(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .didNotStart(let host, let port, let reason):
            "the origin could not listen on \(host):\(port): \(reason)"
        }
    }
}
