import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address: 4 or 16 bytes, network order.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A literal (`10.0.0.1`, `::1`, `[fe80::1]`); nil for a name.
    init?(_ text: String) {
        let literal = HostPattern.normalise(text)
        // A zone index ("fe80::1%eth0") is not part of an IPv6 address.
        let withoutZone = literal.split(separator: "%", maxSplits: 1).first.map(String.init) ?? literal
        for (family, text, count) in [(AF_INET, literal, 4), (AF_INET6, withoutZone, 16)] {
            var bytes = [UInt8](repeating: 0, count: count)
            if inet_pton(family, text, &bytes) == 1 {
                self.bytes = bytes
                return
            }
        }
        return nil
    }

    var text: String {
        (try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0))?.ipAddress
            ?? bytes.map(String.init).joined(separator: ".")
    }

    var description: String { text }

    var addressClass: AddressClass {
        if bytes.count == 4 { return Self.classifyV4(bytes) }
        let b = bytes
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judge the IPv4 address.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return Self.classifyV4(Array(b[12..<16])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return Self.classifyV4(Array(b[12..<16])) }
        // NAT64 (64:ff9b::/96) maps IPv4 too.
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xff, b[3] == 0x9b, b[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.classifyV4(Array(b[12..<16]))
        }
        if b[0] & 0xfe == 0xfc { return .privateNetwork }           // fc00::/7 unique local
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .privateNetwork } // fec0::/10 site-local (deprecated)
        if b[0] == 0xff { return .multicast }
        return .publicAddress
    }

    private static func classifyV4(_ b: [UInt8]) -> AddressClass {
        switch (b[0], b[1]) {
        case (127, _): return .loopback
        case (10, _): return .privateNetwork
        case (172, 16...31): return .privateNetwork
        case (192, 168): return .privateNetwork
        case (169, 254): return .linkLocal
        case (100, 64...127): return .privateNetwork  // carrier-grade NAT, 100.64/10
        case (0, _): return .unspecified               // "this network"; 0.0.0.0 reaches the local host
        case (224...239, _): return .multicast
        case (240...255, _): return .reserved          // 240/4 and the broadcast address
        default: return .publicAddress
        }
    }
}

/// Only `publicAddress` is fetched without an explicit allowance.
enum AddressClass: String, Sendable, Hashable, CustomStringConvertible {
    case publicAddress = "public"
    case loopback
    case privateNetwork = "private"
    case linkLocal = "link-local"
    case unspecified
    case multicast
    case reserved

    var isPublic: Bool { self == .publicAddress }
    var description: String { rawValue }
}
