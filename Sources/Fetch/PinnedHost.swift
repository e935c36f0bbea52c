import Foundation

/// Where the connection for a checked URL must go: the addresses `HostGate` judged, so that the connection
/// cannot look the name up again and get another answer (DNS rebinding).
public struct PinnedHost: Sendable, Hashable, CustomStringConvertible {
    /// The host exactly as the URL spells it (async-http-client looks it up so in `dnsOverride`).
    public let host: String
    /// In the resolver's order, never empty.
    public let addresses: [IPAddress]

    public init?(host: String, addresses: [IPAddress]) {
        guard !addresses.isEmpty else { return nil }
        self.host = host
        self.addresses = addresses
    }

    /// Retries go round the addresses, so one dead address does not fail every attempt.
    public func address(forAttempt attempt: Int) -> IPAddress {
        addresses[(max(1, attempt) - 1) % addresses.count]
    }

    public var description: String {
        "\(host) at \(addresses.map(\.text).joined(separator: ", "))"
    }
}
