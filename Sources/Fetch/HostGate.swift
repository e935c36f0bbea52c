import Foundation

/// Which hosts a run may fetch from, against SSRF, applied before any request: explicit entries (the API,
/// `--allow-host`) at any address, hosts the API's first page names only while all their addresses are public.
/// A named host is resolved once per run and the connection is pinned to the judged addresses, so a name cannot
/// answer public to the check and private to the connection (DNS rebinding).
public actor HostGate {
    private let explicit: Set<HostPattern>
    private var named: Set<HostPattern>
    private let resolver: HostResolver
    private var lookUps: [String: Task<[IPAddress], Never>] = [:]
    private var learned = false

    public init(explicit: [HostPattern] = [], named: [HostPattern] = [], resolver: HostResolver = .system) {
        self.explicit = Set(explicit)
        self.named = Set(named)
        self.resolver = resolver
    }

    /// Allows the hosts of `urls` at public addresses; only the first call counts, so later pages cannot widen it.
    public func learnFirstPage(_ urls: [URL]) {
        guard !learned else { return }
        learned = true
        named.formUnion(urls.compactMap(HostPattern.init(url:)))
    }

    /// `requested`: the URL the caller asked for (differs for a redirect). Returns the addresses the connection
    /// must go to when the verdict depended on them, nil when any address will do.
    @discardableResult
    func check(_ url: URL, requested: URL) async throws(FetchError) -> PinnedHost? {
        guard let host = url.host, let port = HostPattern.effectivePort(of: url) else {
            throw .invalidURL(url.absoluteString)
        }
        let normalised = HostPattern.normalise(host)
        if explicit.contains(where: { $0.matches(host: normalised, port: port) }) { return nil }
        let reason: String
        if !named.contains(where: { $0.matches(host: normalised, port: port) }) {
            reason = "it is not the API's host, not named by the API's first page and not allowed with --allow-host"
        } else {
            let addresses = await resolve(normalised)
            if let address = addresses.first(where: { !$0.addressClass.isPublic }) {
                reason = "it is a \(address.addressClass) address (\(address.text)); "
                    + "allow it explicitly with --allow-host"
            } else if addresses.isEmpty {
                reason = "its name does not resolve"
            } else {
                return IPAddress(normalised) == nil ? PinnedHost(host: host, addresses: addresses) : nil
            }
        }
        throw .hostNotAllowed(url: requested, host: normalised, reason: reason,
                              redirectedTo: url == requested ? nil : url)
    }

    private func resolve(_ host: String) async -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        if let lookUp = lookUps[host] { return await lookUp.value }
        let resolver = self.resolver
        let lookUp = Task { await resolver.addresses(host) }
        lookUps[host] = lookUp
        return await lookUp.value
    }
}

/// The addresses `HostGate` judged, so the connection cannot look the name up again and get another (DNS rebinding).
struct PinnedHost: Sendable, Hashable {
    /// The host exactly as the URL spells it (async-http-client looks it up so in `dnsOverride`).
    let host: String
    /// In the resolver's order, never empty.
    let addresses: [IPAddress]

    init?(host: String, addresses: [IPAddress]) {
        guard !addresses.isEmpty else { return nil }
        self.host = host
        self.addresses = addresses
    }

    /// Retries go round the addresses, so one dead address does not fail every attempt.
    func address(forAttempt attempt: Int) -> IPAddress {
        addresses[(max(1, attempt) - 1) % addresses.count]
    }
}
