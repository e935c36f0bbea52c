import Foundation

/// Only `publicAddress` is fetched without an explicit allowance.
public enum AddressClass: String, Sendable, Hashable, CustomStringConvertible {
    case publicAddress = "public"
    case loopback
    case privateNetwork = "private"
    case linkLocal = "link-local"
    case unspecified
    case multicast
    case reserved

    public var isPublic: Bool { self == .publicAddress }
    public var description: String { rawValue }
}
