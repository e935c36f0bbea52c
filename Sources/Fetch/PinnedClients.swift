import AsyncHTTPClient
import Foundation

/// One `HTTPClient` per pinned host and address (`dnsOverride`), keeping the name for `Host` and TLS: AHC has no
/// per-request address or resolver hook, and a run names few hosts.
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

    /// nil once shut down.
    func client(host: String, address: IPAddress) -> HTTPClient? {
        guard !isShutDown else { return nil }
        let key = Key(host: host, address: address)
        if let client = clients[key] { return client }
        let client = makeClient([host: address.text])
        clients[key] = client
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
