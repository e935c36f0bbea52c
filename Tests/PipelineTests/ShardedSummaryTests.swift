import Foundation
@testable import Pipeline
import XCTest

/// A shard's summary outputs say which shard they are, so N files add up to one run.
final class ShardedSummaryTests: XCTestCase {
    func testPrometheusSamplesOfAShardCarryItsLabel() {
        var summary = WarmSummary()
        summary.shard = "1/3"
        summary.imagesDownloaded = 5
        summary.imagesOtherShards = 11
        summary.pagesFetched = 2
        summary.failedByReason = ["http-404": 1]
        let text = PrometheusTextfile.render(summary)
        XCTAssertTrue(text.contains("warm_images{outcome=\"downloaded\",shard=\"1/3\"} 5\n"), text)
        XCTAssertTrue(text.contains("warm_images{outcome=\"other_shard\",shard=\"1/3\"} 11\n"), text)
        XCTAssertTrue(text.contains("warm_pages_fetched{shard=\"1/3\"} 2\n"), text)
        XCTAssertTrue(text.contains("warm_images_failed_by_reason{reason=\"http-404\",shard=\"1/3\"} 1\n"), text)
        XCTAssertTrue(summary.oneLine.contains("11 left to other shards (shard 1/3)"), summary.oneLine)
    }

    func testAnUnshardedSummaryHasNoShardLabel() {
        var summary = WarmSummary()
        summary.imagesDownloaded = 5
        let text = PrometheusTextfile.render(summary)
        XCTAssertFalse(text.contains("shard"), text)
        XCTAssertTrue(text.contains("warm_images{outcome=\"downloaded\"} 5\n"), text)
    }
}
