import AsyncHTTPClient
import Foundation

/// One `HTTPClient` per pinned host and address (`dnsOverride`), keeping the name for `Host` and TLS: AHC has no
/// per-request address or resolver hook, and a run names few hosts.
actor PinnedClients {
    private let makeClient: @Sendable (_ dnsOverride: [String: String]) -> HTTPClient
    /// By their `dnsOverride`.
    private var clients: [[String: String]: HTTPClient] = [:]
    private var isShutDown = false

    init(makeClient: @escaping @Sendable (_ dnsOverride: [String: String]) -> HTTPClient) {
        self.makeClient = makeClient
    }

    /// nil once shut down.
    func client(host: String, address: IPAddress) -> HTTPClient? {
        guard !isShutDown else { return nil }
        let dnsOverride = [host: address.text]
        if let client = clients[dnsOverride] { return client }
        let client = makeClient(dnsOverride)
        clients[dnsOverride] = client
        return client
    }

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
