import Foundation

/// Which hosts a run may fetch from, so that a product record cannot make the job fetch internal services
/// (SSRF). **Explicit** entries (the API, `--allow-host`) are allowed at any address; **named** ones (hosts
/// the API's first page names) only while all their addresses are public. Anything else is refused.
public struct HostPolicy: Sendable, Hashable {
    public private(set) var explicit: Set<HostPattern>
    public private(set) var named: Set<HostPattern>

    public init(explicit: [HostPattern] = [], named: [HostPattern] = []) {
        self.explicit = Set(explicit)
        self.named = Set(named)
    }

    public mutating func addNamed(_ patterns: [HostPattern]) {
        named.formUnion(patterns)
    }

    public func isExplicit(host: String, port: Int) -> Bool {
        explicit.contains { $0.matches(host: host, port: port) }
    }

    public func isNamed(host: String, port: Int) -> Bool {
        named.contains { $0.matches(host: host, port: port) }
    }

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
