import Foundation

/// Which hosts a run may fetch from, so that a product record cannot make the
/// job fetch internal services (SSRF).
///
/// Two kinds of entries:
/// - **explicit** (the API the operator gives, `--allow-host`): allowed
///   whatever they resolve to, loopback and private addresses included;
/// - **named** (the hosts the API's first page names): allowed only while
///   none of their addresses is private, loopback, link-local or otherwise
///   not public (`AddressClass`).
///
/// Anything else is refused. An entry is `host` (any port) or `host:port`.
/// A pure value: resolving names is `HostGate`'s job; `verdict` takes the addresses.
public struct HostPolicy: Sendable, Hashable {
    public private(set) var explicit: Set<HostPattern>
    public private(set) var named: Set<HostPattern>

    public init(explicit: [HostPattern] = [], named: [HostPattern] = []) {
        self.explicit = Set(explicit)
        self.named = Set(named)
    }

    /// Adds hosts named by the catalog (allowed only at public addresses).
    public mutating func addNamed(_ patterns: [HostPattern]) {
        named.formUnion(patterns)
    }

    public func isExplicit(host: String, port: Int) -> Bool {
        explicit.contains { $0.matches(host: host, port: port) }
    }

    public func isNamed(host: String, port: Int) -> Bool {
        named.contains { $0.matches(host: host, port: port) }
    }

    /// Whether `host:port`, which resolves to `addresses`, may be fetched.
    public func verdict(host: String, port: Int, addresses: [IPAddress]) -> HostVerdict {
        if isExplicit(host: host, port: port) { return .allowed }
        guard isNamed(host: host, port: port) else { return .refused(.notListed) }
        if let address = addresses.first(where: { !$0.addressClass.isPublic }) {
            return .refused(.nonPublicAddress(address.text, address.addressClass))
        }
        if addresses.isEmpty { return .refused(.unresolved) }
        return .allowed
    }
}
