import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Applies a `HostPolicy` to URLs before any request is made (and to every
/// redirect target): resolves names once per host (getaddrinfo, cached for
/// the run) and learns the hosts the API's first page names.
///
/// Shared by every fetch of a run, hence an actor. Limitation: the address
/// checked is the one resolved here; a name whose DNS answer changes between
/// this check and the connection (DNS rebinding) is not caught.
public actor HostGate {
    public private(set) var policy: HostPolicy
    private var addressesByHost: [String: [IPAddress]] = [:]
    private var learned = false

    public init(policy: HostPolicy) {
        self.policy = policy
    }

    /// Allows the hosts of `urls` (at public addresses only); only the first
    /// call counts, so that later pages cannot widen the list.
    public func learnFirstPage(_ urls: [URL]) {
        guard !learned else { return }
        learned = true
        policy.addNamed(urls.compactMap(HostPattern.init(url:)))
    }

    /// Throws `FetchError.hostNotAllowed` when `url`'s host may not be fetched.
    /// `requested` is the URL the caller asked for (differs for a redirect).
    public func check(_ url: URL, requested: URL) async throws(FetchError) {
        guard let host = url.host, let port = HostPattern.effectivePort(of: url) else {
            throw .invalidURL(url.absoluteString)
        }
        let normalised = HostPattern.normalise(host)
        if policy.isExplicit(host: normalised, port: port) { return }
        var addresses: [IPAddress] = []
        if policy.isNamed(host: normalised, port: port) {
            addresses = await resolve(normalised)
        }
        if case .refused(let why) = policy.verdict(host: normalised, port: port, addresses: addresses) {
            throw .hostNotAllowed(url: requested, host: normalised, reason: why.description,
                                  redirectedTo: url == requested ? nil : url)
        }
    }

    private func resolve(_ host: String) async -> [IPAddress] {
        if let known = addressesByHost[host] { return known }
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]
        } else {
            // getaddrinfo blocks; off the actor's executor for its duration.
            addresses = await Task.detached { Self.lookUp(host) }.value
        }
        addressesByHost[host] = addresses
        return addresses
    }

    /// `lookUp`, for tests of what a name resolves to.
    public static func lookUpForTesting(_ host: String) -> [IPAddress] { lookUp(host) }

    /// Every address `host` resolves to (IPv4 and IPv6); empty when it does not resolve.
    static func lookUp(_ host: String) -> [IPAddress] {
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
        return Array(Set(result)).sorted { $0.text < $1.text }
    }
}
