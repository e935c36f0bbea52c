import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which hosts a run may fetch from, so that a product record cannot make the
/// job fetch internal services (SSRF).
///
/// Two kinds of entries:
/// - **explicit** (the API the operator gives, `--allow-host`): allowed
///   whatever they resolve to, loopback and private addresses included;
/// - **named** (the hosts the API's first page names): allowed only while
///   none of their addresses is private, loopback, link-local or otherwise
///   not public (`AddressClass`).
///
/// Anything else is refused. An entry is `host` (any port) or `host:port`.
/// A pure value: resolving names is `HostGate`'s job; `verdict` takes the addresses.
public struct HostPolicy: Sendable, Hashable {
    public private(set) var explicit: Set<HostPattern>
    public private(set) var named: Set<HostPattern>

    public init(explicit: [HostPattern] = [], named: [HostPattern] = []) {
        self.explicit = Set(explicit)
        self.named = Set(named)
    }

    /// Adds hosts named by the catalog (allowed only at public addresses).
    public mutating func addNamed(_ patterns: [HostPattern]) {
        named.formUnion(patterns)
    }

    public func isExplicit(host: String, port: Int) -> Bool {
        explicit.contains { $0.matches(host: host, port: port) }
    }

    public func isNamed(host: String, port: Int) -> Bool {
        named.contains { $0.matches(host: host, port: port) }
    }

    /// Whether `host:port`, which resolves to `addresses`, may be fetched.
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

/// A host the policy names, with or without a port.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// Lower-case, IPv6 without brackets.
    public var host: String
    /// nil: any port.
    public var port: Int?

    public init(host: String, port: Int? = nil) {
        self.host = HostPattern.normalise(host)
        self.port = port
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port` or a URL (its host and effective port).
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.contains("://") {
            guard let url = URL(string: trimmed), let pattern = HostPattern(url: url) else { return nil }
            self = pattern
            return
        }
        var host = Substring(trimmed), port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, port.map({ (1...65535).contains($0) }) ?? true else { return nil }
        self.init(host: String(host), port: port)
    }

    /// The host and effective port (80/443 when the URL names none) of an http(s) URL.
    public init?(url: URL) {
        guard let host = url.host, !host.isEmpty, let port = HostPattern.effectivePort(of: url) else { return nil }
        self.init(host: host, port: port)
    }

    public func matches(host: String, port: Int) -> Bool {
        self.host == HostPattern.normalise(host) && (self.port == nil || self.port == port)
    }

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }

    static func normalise(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func effectivePort(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }
}

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

/// An IPv4 or IPv6 address, as bytes.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, network order.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a literal (`10.0.0.1`, `::1`, `[fe80::1]`); nil for a name.
    public init?(_ text: String) {
        let literal = HostPattern.normalise(text)
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        // A zone index ("fe80::1%eth0") is not part of the address.
        let withoutZone = literal.split(separator: "%", maxSplits: 1).first.map(String.init) ?? literal
        if inet_pton(AF_INET6, withoutZone, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    public var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        guard ok else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { text }

    /// What kind of network the address belongs to.
    public var addressClass: AddressClass {
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

/// The network an address belongs to; only `publicAddress` is fetched without an explicit allowance.
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
