import Foundation

/// Which hosts a run may fetch from, against SSRF: explicit entries (the API, `--allow-host`) at any address,
/// hosts the API's first page names only while all their addresses are public.
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

    /// Why `host:port` at `addresses` may not be fetched; nil when it may.
    public func refusal(host: String, port: Int, addresses: [IPAddress]) -> HostRefusal? {
        if isExplicit(host: host, port: port) { return nil }
        guard isNamed(host: host, port: port) else { return .notListed }
        if let address = addresses.first(where: { !$0.addressClass.isPublic }) {
            return .nonPublicAddress(address.text, address.addressClass)
        }
        return addresses.isEmpty ? .unresolved : nil
    }
}

public enum HostRefusal: Sendable, Hashable, CustomStringConvertible {
    case notListed
    case nonPublicAddress(String, AddressClass)
    /// It cannot be shown to be public.
    case unresolved

    public var description: String {
        switch self {
        case .notListed:
            return "it is not the API's host, not named by the API's first page and not allowed with --allow-host"
        case .nonPublicAddress(let address, let addressClass):
            return "it is a \(addressClass) address (\(address)); allow it explicitly with --allow-host"
        case .unresolved:
            return "its name does not resolve"
        }
    }
}
