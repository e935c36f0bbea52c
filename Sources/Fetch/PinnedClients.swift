import AsyncHTTPClient
import Foundation

/// One `HTTPClient` per pinned host and address, made with `dnsOverride = [host: address]`: it connects to
/// the address and still sends the name as `Host` and TLS server name. A client per pin because async-http-client
/// has no per-request address nor resolver hook; a run names few hosts, so there are few clients.
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
