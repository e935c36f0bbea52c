import Foundation

public enum HostVerdict: Sendable, Hashable {
    case allowed
    case refused(HostRefusal)
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
