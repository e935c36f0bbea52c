@testable import DemoCatalog
import Foundation
import Logging
@testable import Pipeline
import Synchronization
import WarmTestSupport
import XCTest

/// What a person watching a run sees: the total, the rate, the time left.
final class ProgressTests: XCTestCase {
    func testProgressTotalEqualsTheCatalogsDistinctThumbnailsOnceTheCrawlIsDone() async throws {
        let server = try await TestCatalog.start(products: 120, shared: 0.08, without: 0.05)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let distinct = await TestCatalog.distinctThumbnails(server).count
        let listed = await server.productCount()
        XCTAssertLessThan(distinct, listed, "some products share or lack a thumbnail")

        let captured = CapturedLog()
        var configuration = TestCatalog.configuration(server, cache: cacheDirectory)
        configuration.fetching.itemsPerPage = 10
        let summary = try await WarmPipeline.run(configuration, logger: captured.logger, progressBar: false)
        await server.shutdown()

        let totals = captured.lines.compactMap(Self.doneAndTotal)
        let last = try XCTUnwrap(totals.last, "\(captured.lines)")
        XCTAssertEqual(summary.imagesScheduled, distinct)
        XCTAssertEqual(last.total, distinct, "the final total is the catalog's distinct thumbnails")
        XCTAssertTrue(last.final, "the final line does not call its total an estimate")
        XCTAssertEqual(last.done, distinct)
        // Totals never run below what is done, and start from page 1's totalCount (not from the first page's products).
        for line in totals { XCTAssertLessThanOrEqual(line.done, line.total) }
        let first = try XCTUnwrap(totals.first)
        XCTAssertGreaterThan(first.total, configuration.fetching.itemsPerPage, "the first total comes from totalCount")
        XCTAssertLessThanOrEqual(first.total, listed)
    }

    func testLogLinesComeEveryTenSecondsOrTenthWithRateAndTimeLeft() {
        let captured = CapturedLog()
        let now = Mutex(0.0)
        var reporter = ProgressReporter(logger: captured.logger, interactive: false, logIntervalSeconds: 10,
                                        clock: { now.withLock { $0 } })
        reporter.update(ProgressSnapshot(done: 0, total: 200))
        XCTAssertTrue(captured.lines.isEmpty, "nothing done yet, nothing to say")
        now.withLock { $0 = 2 }
        reporter.update(ProgressSnapshot(done: 10, total: 200))
        now.withLock { $0 = 4 }
        reporter.update(ProgressSnapshot(done: 15, total: 200))  // same tenth, 2 s later: quiet
        XCTAssertEqual(captured.lines.count, 1)
        XCTAssertTrue(captured.lines[0].contains("10/~200 thumbnails (5%), 5.0/s, 0:38 left, 0 failed"), captured.lines[0])
        now.withLock { $0 = 12.5 }
        reporter.update(ProgressSnapshot(done: 16, total: 200))  // 10 s since the last line
        XCTAssertEqual(captured.lines.count, 2)
        now.withLock { $0 = 13 }
        reporter.update(ProgressSnapshot(done: 40, total: 190, totalIsFinal: true, failed: 1,
                                         measured: 4, measureTotal: 190))  // a new tenth
        XCTAssertEqual(captured.lines.count, 3)
        XCTAssertTrue(captured.lines[2].contains("40/190 thumbnails (21%), 3.1/s, 0:49 left, 1 failed; measure 4/190 images"),
                      captured.lines[2])
    }

    /// (done, total, total is final) from a progress line such as "warm [...] 12/~90 thumbnails ...".
    static func doneAndTotal(_ line: String) -> (done: Int, total: Int, final: Bool)? {
        guard let range = line.range(of: #"\d+/~?\d+ thumbnails"#, options: .regularExpression) else { return nil }
        let parts = line[range].dropLast(" thumbnails".count).split(separator: "/")
        guard parts.count == 2, let done = Int(parts[0]), let total = Int(parts[1].drop { $0 == "~" }) else { return nil }
        return (done, total, !parts[1].hasPrefix("~"))
    }
}
