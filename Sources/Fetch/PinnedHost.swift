import Foundation

/// Where the connection for a checked URL must go: the addresses `HostGate`
/// resolved for the URL's host and judged, so that the connection cannot look
/// the name up again and get another answer (DNS rebinding).
///
/// `HTTPFetcher` connects to one of `addresses` and still sends `host` as the
/// `Host` header and TLS server name.
public struct PinnedHost: Sendable, Hashable, CustomStringConvertible {
    /// The host exactly as the URL spells it (async-http-client looks it up so in `dnsOverride`).
    public let host: String
    /// Every address the check saw (none empty), in the resolver's order.
    public let addresses: [IPAddress]

    public init?(host: String, addresses: [IPAddress]) {
        guard !addresses.isEmpty else { return nil }
        self.host = host
        self.addresses = addresses
    }

    /// The address for attempt `attempt` (1-based): retries go round the
    /// checked addresses, so one dead address does not fail every attempt.
    public func address(forAttempt attempt: Int) -> IPAddress {
        addresses[(max(1, attempt) - 1) % addresses.count]
    }

    public var description: String {
        "\(host) at \(addresses.map(\.text).joined(separator: ", "))"
    }
}
