import Foundation

/// Applies a `HostPolicy` to URLs before any request is made (and to every
/// redirect target), and says where the connection must go: resolves a name
/// once per run (through its `HostResolver`), judges those addresses, and
/// returns them as the `PinnedHost` the connection is made to. The same answer
/// serves the check and the connection, so a name cannot answer a public
/// address to the check and a private one to the connection (DNS rebinding).
///
/// Explicit hosts (`--allow-host`, the API) are allowed at any address, so
/// their verdict cannot change with the answer: they are not resolved here and
/// connect by name as usual. Address literals need no resolving either.
///
/// Shared by every fetch of a run, hence an actor. Answers are kept for the
/// run (no TTL): a named host keeps the address it was checked at until the
/// run ends. Concurrent first checks of one host share one lookup.
public actor HostGate {
    public private(set) var policy: HostPolicy
    private let resolver: HostResolver
    private var lookUps: [String: Task<[IPAddress], Never>] = [:]
    private var learned = false

    public init(policy: HostPolicy, resolver: HostResolver = .system) {
        self.policy = policy
        self.resolver = resolver
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
    /// Returns the addresses the connection must go to when the verdict
    /// depended on them (a named host given by name), nil when any address will do.
    @discardableResult
    public func check(_ url: URL, requested: URL) async throws(FetchError) -> PinnedHost? {
        guard let host = url.host, let port = HostPattern.effectivePort(of: url) else {
            throw .invalidURL(url.absoluteString)
        }
        let normalised = HostPattern.normalise(host)
        if policy.isExplicit(host: normalised, port: port) { return nil }
        var addresses: [IPAddress] = []
        if policy.isNamed(host: normalised, port: port) {
            addresses = await resolve(normalised)
        }
        if case .refused(let why) = policy.verdict(host: normalised, port: port, addresses: addresses) {
            throw .hostNotAllowed(url: requested, host: normalised, reason: why.description,
                                  redirectedTo: url == requested ? nil : url)
        }
        if IPAddress(normalised) != nil { return nil }
        return PinnedHost(host: host, addresses: addresses)
    }

    private func resolve(_ host: String) async -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        if let lookUp = lookUps[host] { return await lookUp.value }
        let resolver = self.resolver
        let lookUp = Task { await resolver.addresses(of: host) }
        lookUps[host] = lookUp
        return await lookUp.value
    }
}
