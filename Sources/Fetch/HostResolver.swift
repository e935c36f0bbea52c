import Foundation
import WarmSupport
#if canImport(Glibc)
import Glibc
#endif

/// How `HostGate` turns a host name into addresses: `getaddrinfo` in a run, a test's answers in tests.
public struct HostResolver: Sendable {
    /// Every address of a name, most preferred first; empty when it does not resolve.
    let addresses: @Sendable (_ host: String) async -> [IPAddress]

    init(_ addresses: @escaping @Sendable (_ host: String) async -> [IPAddress]) {
        self.addresses = addresses
    }

    /// IPv4 and IPv6 in `getaddrinfo`'s (RFC 6724) order; it blocks, so it runs through `BlockingWork`.
    public static let system = HostResolver { host in
        await BlockingWork.run(ifShutDown: []) { getAddresses(host) }
    }

    static func getAddresses(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [IPAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            let bytes: [UInt8]? = switch (Int32(current.pointee.ai_family), current.pointee.ai_addr) {
            case (AF_INET, let address?):
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin_addr, Array.init)
                }
            case (AF_INET6, let address?):
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin6_addr, Array.init)
                }
            default: nil
            }
            if let bytes, let ip = IPAddress(bytes: bytes) { result.append(ip) }
            node = current.pointee.ai_next
        }
        var seen: Set<IPAddress> = []
        return result.filter { seen.insert($0).inserted }
    }
}
