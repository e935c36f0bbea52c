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
            // Where the address bytes lie in the family's sockaddr, and how many there are.
            let field: (offset: Int?, count: Int)? = switch Int32(current.pointee.ai_family) {
            case AF_INET: (MemoryLayout<sockaddr_in>.offset(of: \.sin_addr), 4)
            case AF_INET6: (MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr), 16)
            default: nil
            }
            if let address = current.pointee.ai_addr, let field, let offset = field.offset,
               let ip = IPAddress(bytes: Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(address) + offset,
                                                                      count: field.count))) {
                result.append(ip)
            }
            node = current.pointee.ai_next
        }
        var seen: Set<IPAddress> = []
        return result.filter { seen.insert($0).inserted }
    }
}
