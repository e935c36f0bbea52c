@testable import DemoCatalog
@testable import Fetch
import Foundation
import WarmTestSupport
import XCTest

/// A stopping run (SIGTERM, `--stop-grace`) must not wait for a download that stalls or is slow: a cancelled
/// fetch returns at once with `cancelled`, and nothing from the body reaches the caller.
final class CancelledFetchTests: XCTestCase {
    private let stalling = try! FaultPlan(parsing: "image-stall")

    /// The fetch's own limits are an hour away, so only the cancellation can end it; the test waits 60 s for that
    /// (a hang bound, over 10x what a cancellation takes on a loaded machine) before it calls the fetch held.
    func testACancelledFetchOfAStalledBodyReturnsAtOnce() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 1, requestTimeoutSeconds: 3600, deadlineSeconds: 3600)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.setFaultPlan(stalling)
            let fetch = Task { try await fetcher.get(url) }
            try await Task.sleep(for: .milliseconds(300)) // the head and half the body have arrived
            fetch.cancel()
            // Whichever comes first; unstructured, so that a fetch still held does not hold the test too.
            let (first, answer) = AsyncStream<FetchError?>.makeStream()
            Task { answer.yield(await caught(FetchError.self) { _ = try await fetch.value }) }
            let bound = Task {
                try await Task.sleep(for: .seconds(60))
                answer.yield(nil)
            }
            let ended = await first.first { _ in true } ?? nil
            bound.cancel()
            XCTAssertEqual(ended, .cancelled(url: url), "the stalled body held the cancelled fetch")
        }
    }
}
