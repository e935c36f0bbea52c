@testable import Fetch
import Foundation
import Synchronization

/// A `Fetching` that answers from a dictionary (404 for any other URL), records what was asked and how many fetches
/// ran at once. A fake is right here: the thing under test is the walk, not HTTP (FetchTests cover the fetcher).
final class InMemoryFetcher: Fetching {
    private let bodies: [URL: Data]
    private let failures: [URL: FetchError]
    private let state = Mutex(State())

    private struct State {
        var requested: [URL] = []
        var inFlight = 0
        var maxInFlight = 0
    }

    init(bodies: [String: Data], failures: [String: FetchError] = [:]) {
        self.bodies = Dictionary(uniqueKeysWithValues: bodies.map { (URL(string: $0.key)!, $0.value) })
        self.failures = Dictionary(uniqueKeysWithValues: failures.map { (URL(string: $0.key)!, $0.value) })
    }

    convenience init(texts: [String: String]) {
        self.init(bodies: texts.mapValues { Data($0.utf8) })
    }

    var requested: [URL] { state.withLock { $0.requested } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        state.withLock { state in
            state.requested.append(url)
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
        }
        // Let the other fetches of the walk start, so that a missing bound would show in maxInFlight.
        for _ in 0..<10 { await Task.yield() }
        state.withLock { $0.inFlight -= 1 }
        if let failure = failures[url] { throw failure }
        guard let body = bodies[url] else { throw .httpStatus(url: url, status: 404, attempts: 1) }
        return .fetched(FetchedResource(url: url, finalURL: url, status: 200, body: body, etag: nil, lastModified: nil,
                                        contentType: "application/xml", attempts: 1, redirects: 0))
    }
}
