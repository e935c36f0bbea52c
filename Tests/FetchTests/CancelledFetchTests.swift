import Servers
import Fetch
import Foundation
import WarmTestSupport
import XCTest

/// A stopping run (SIGTERM, `--stop-grace`) must not wait for a download that stalls or is slow: a cancelled
/// fetch returns at once with `cancelled`, and nothing from the body reaches the caller.
final class CancelledFetchTests: XCTestCase {
    private let stalling = try! FaultPlan(parsing: "image-stall")

    func testACancelledFetchOfAStalledBodyReturnsAtOnce() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 1, requestTimeoutSeconds: 60, deadlineSeconds: 60)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.setFaultPlan(stalling)
            let fetch = Task { try await fetcher.get(url) }
            try await Task.sleep(for: .milliseconds(300)) // the head and half the body have arrived
            let clock = ContinuousClock()
            let cancelled = clock.now
            fetch.cancel()
            let error = await caught(FetchError.self) { _ = try await fetch.value }
            XCTAssertEqual(error, .cancelled(url: url))
            XCTAssertLessThan(clock.now - cancelled, .seconds(2), "the stalled body held the cancelled fetch")
        }
    }
}
