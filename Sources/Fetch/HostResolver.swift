import Foundation
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// How `HostGate` turns a host name into addresses: the system's resolver
/// (`getaddrinfo`) in a run; in tests, answers of the test's choosing (a name
/// that answers a public address first and loopback after).
///
/// The gate asks once per host and run; the connection then goes to an address
/// from that answer (`PinnedHost`), so nothing resolves the name a second time.
public struct HostResolver: Sendable {
    private let lookUp: @Sendable (String) async -> [IPAddress]

    /// `lookUp` returns every address of a name, most preferred first; empty
    /// when the name does not resolve.
    public init(_ lookUp: @escaping @Sendable (String) async -> [IPAddress]) {
        self.lookUp = lookUp
    }

    public func addresses(of host: String) async -> [IPAddress] {
        await lookUp(host)
    }

    /// `getaddrinfo`, IPv4 and IPv6, in the order it returns them (RFC 6724
    /// preference, which puts IPv4 first on a host without IPv6 routes).
    /// The call blocks its thread for the lookup, so it runs on NIO's
    /// blocking-work pool, never on Swift's cooperative pool.
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
        // Duplicates dropped, order kept: the first address is the one connected to first.
        var seen: Set<IPAddress> = []
        return result.filter { seen.insert($0).inserted }
    }
}
