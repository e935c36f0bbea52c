import Foundation

/// The policy's answer for one host.
public enum HostVerdict: Sendable, Hashable {
    case allowed
    case refused(HostRefusal)
}

/// Why a host is refused.
public enum HostRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Neither the API's host, nor named by its first page, nor `--allow-host`.
    case notListed
    /// Named by the catalog, but it is (or resolves to) an address that is not public.
    case nonPublicAddress(String, AddressClass)
    /// The name did not resolve, so it cannot be shown to be public.
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
