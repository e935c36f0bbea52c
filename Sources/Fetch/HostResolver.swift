import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// How `HostGate` turns a host name into addresses: `getaddrinfo` in a run, a test's answers in tests.
public struct HostResolver: Sendable {
    /// Every address of a name, most preferred first; empty when it does not resolve.
    public let addresses: @Sendable (_ host: String) async -> [IPAddress]

    public init(_ addresses: @escaping @Sendable (_ host: String) async -> [IPAddress]) {
        self.addresses = addresses
    }

    /// IPv4 and IPv6 in `getaddrinfo`'s (RFC 6724) order; it blocks, so it runs on NIO's thread pool.
    public static let system = HostResolver { host in
        (try? await NIOThreadPool.singleton.runIfActive { getAddresses(host) }) ?? []
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
            if let address = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        var raw = $0.pointee.sin_addr
                        if let ip = IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }) { result.append(ip) }
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        var raw = $0.pointee.sin6_addr
                        if let ip = IPAddress(bytes: withUnsafeBytes(of: &raw) { Array($0) }) { result.append(ip) }
                    }
                default:
                    break
                }
            }
            node = current.pointee.ai_next
        }
        var seen: Set<IPAddress> = []
        return result.filter { seen.insert($0).inserted }
    }
}
