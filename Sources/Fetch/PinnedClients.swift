import AsyncHTTPClient
import Foundation

/// One `HTTPClient` per pinned host and address, each made with
/// `dnsOverride = [host: address]`: the client connects to that address and
/// still sends the host name as `Host` and as the TLS server name, and checks
/// the certificate against the name (async-http-client's `dnsOverride`).
///
/// Why a client per pin: `dnsOverride` belongs to a client's configuration,
/// and async-http-client has no per-request address nor a resolver hook. The
/// connection pool's key is the address connected to (the override), and each
/// client only ever has one override, so a pooled connection is never reused
/// for another address. Cost: a pool per named host and address, on the shared
/// event loops; a run names few hosts (those of the API's first page), and the
/// gate keeps one answer per host for the run, so there are few clients.
actor PinnedClients {
    private struct Key: Hashable {
        var host: String
        var address: IPAddress
    }

    private let makeClient: @Sendable (_ dnsOverride: [String: String]) -> HTTPClient
    private var clients: [Key: HTTPClient] = [:]
    private var isShutDown = false

    init(makeClient: @escaping @Sendable (_ dnsOverride: [String: String]) -> HTTPClient) {
        self.makeClient = makeClient
    }

    /// The client that connects `host` to `address`; nil once shut down.
    func client(host: String, address: IPAddress) -> HTTPClient? {
        guard !isShutDown else { return nil }
        let key = Key(host: host, address: address)
        if let client = clients[key] { return client }
        let client = makeClient([host: address.text])
        clients[key] = client
        return client
    }

    /// Shuts every client down; later calls of `client` get nil.
    func shutdown() async throws {
        isShutDown = true
        let all = Array(clients.values)
        clients = [:]
        var firstError: (any Error)?
        for client in all {
            do { try await client.shutdown() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
