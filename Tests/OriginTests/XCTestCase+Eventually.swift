import XCTest

extension XCTestCase {
    /// Polls until `condition` holds: the origin looks at its manifest (or the published link) every 100 ms, so 10 s
    /// is a generous bound on a hang, not a measure of the refresh.
    func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("not within 10 s: \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
