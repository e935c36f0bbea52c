import Foundation
@testable import Pipeline
@testable import WarmSupport
import XCTest

/// The one Prometheus text writer, as the run's file and the origin's /metrics use it.
final class PrometheusTextTests: XCTestCase {
    func testLabelValuesAreEscapedAndEachFamilyComesOnceForSeveralSummaries() {
        var whole = WarmSummary(), shard = WarmSummary()
        whole.failedByReason = ["odd \"quoted\" \\ reason\nsecond line": 2]
        shard.shard = "2/3"
        let text = PrometheusTextfile.render([whole, shard], originVersion: "9.9")
        XCTAssertTrue(text.contains("warm_images_failed_by_reason{reason=\"odd \\\"quoted\\\" \\\\ reason\\nsecond line\"} 2\n"), text)
        XCTAssertEqual(text.components(separatedBy: "# TYPE warm_images gauge\n").count, 2, "one TYPE line per family")
        XCTAssertTrue(text.contains("warm_build_info{component=\"origin\",version=\"9.9\"} 1\nwarm_build_info{component=\"run\""), text)
        XCTAssertTrue(text.contains("warm_images{outcome=\"other_shard\",shard=\"2/3\"} 0\n"), text)
        XCTAssertTrue(text.hasSuffix("\n") && !text.hasSuffix("\n\n"), "one newline after the last sample")
    }

    func testASampleWithoutLabelsHasNoBraces() {
        var text = PrometheusText()
        text.family("warm_x", type: "counter", help: "X.")
        text.sample("warm_x", "3")
        text.sample("warm_x", [("a", "b")], "4")
        XCTAssertEqual(text.text, "# HELP warm_x X.\n# TYPE warm_x counter\nwarm_x 3\nwarm_x{a=\"b\"} 4\n")
    }
}
