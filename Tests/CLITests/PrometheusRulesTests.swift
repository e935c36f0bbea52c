import Foundation
import WarmTestSupport
import XCTest

/// The alert rules shipped in deploy/prometheus/: `promtool check rules`, their unit tests (`promtool test rules`),
/// and that they name only metrics warm writes.
final class PrometheusRulesTests: XCTestCase {
    private static let directory = repositoryRoot
        .appendingPathComponent("deploy/prometheus")

    private func rules() throws -> String {
        try String(contentsOf: Self.directory.appendingPathComponent("warm-rules.yaml"), encoding: .utf8)
    }

    private func ruleTests() throws -> String {
        try String(contentsOf: Self.directory.appendingPathComponent("warm-rules.test.yaml"), encoding: .utf8)
    }

    /// `rules` and `tests` written to a directory, as promtool finds the rule file beside its tests.
    private func copy(rules: String, tests: String) throws -> URL {
        let copy = try makeTemporaryDirectory()
        try rules.write(to: copy.appendingPathComponent("warm-rules.yaml"), atomically: true, encoding: .utf8)
        try tests.write(to: copy.appendingPathComponent("warm-rules.test.yaml"), atomically: true, encoding: .utf8)
        return copy
    }

    func testTheShippedRulesPassPromtoolCheckAndTheirUnitTests() throws {
        let check = try PromTool.run(["check", "rules", "warm-rules.yaml"], in: Self.directory)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertTrue(check.output.contains("SUCCESS"), check.output)
        let test = try PromTool.run(["test", "rules", "warm-rules.test.yaml"], in: Self.directory)
        XCTAssertEqual(test.status, 0, test.output)
        XCTAssertTrue(test.output.contains("SUCCESS"), test.output)
    }

    /// Every alert in the rules has a unit test where it fires and one where it stays silent.
    func testEveryAlertHasAFiringAndASilentCase() throws {
        let rules = try rules()
        let tests = try ruleTests()
        let names = try NSRegularExpression(pattern: #"- alert: (\w+)"#)
        let alerts = names.matches(in: rules, range: NSRange(rules.startIndex..., in: rules)).map { String(rules[Range($0.range(at: 1), in: rules)!]) }
        XCTAssertGreaterThanOrEqual(alerts.count, 16, "\(alerts)")
        for alert in alerts {
            XCTAssertTrue(tests.contains("alertname: \(alert)\n        exp_alerts:\n          - exp_labels:"),
                          "warm-rules.test.yaml has no case where \(alert) fires")
            XCTAssertTrue(tests.contains("alertname: \(alert)\n        exp_alerts: []"), "warm-rules.test.yaml has no case where \(alert) stays silent")
        }
        XCTAssertTrue(rules.contains("time() - min without (instance, pod) (warm_last_success_timestamp_seconds) > 28 * 3600"))
    }

    /// Issue 45's five cases, each caught by a unit test when the rule that handles it is undone.
    func testTheUnitTestsCatchEachOfTheFiveCasesWhenItsRuleIsUndone() throws {
        let undone: [(case: String, from: String, to: String, alert: String)] = [
            ("both replicas down for 10 h", #"absent(up{job="warm-origin"} == 1)"#, #"absent(up{job="warm-origin"})"#, "WarmOriginDown"),
            ("a shard that never succeeded, 50 h", "unless max without (instance, pod) (warm_last_success_timestamp_seconds)\n        for: 28h",
             "unless max without (instance, pod) (warm_last_success_timestamp_seconds)\n        for: 60h", "WarmShardNeverSucceeded"),
            ("a healthy slower night", "> 28 * 3600", "> 26 * 3600", "WarmNoSuccessfulRun"),
            ("2 requests a minute, a 5xx every five", "* 60 > 1", "* 60 > 0", "WarmOriginErrors"),
            ("a merge that failed after its retries on exit 75", #"kube_job_failed{condition="true""#, #"kube_job_failed{condition="unknown""#,
             "WarmMergeFailed"),
        ]
        let copies = try undone.map { each in
            let original = try rules()
            let edited = original.replacingOccurrences(of: each.from, with: each.to)
            XCTAssertNotEqual(edited, original, "\(each.case): the rule changed")
            return try copy(rules: edited, tests: try ruleTests())
        }
        for (each, test) in zip(undone, PromTool.testRules(in: copies)) {
            XCTAssertNotEqual(test.status, 0, "\(each.case): \(test.output)")
            XCTAssertTrue(test.output.contains("alertname: \(each.alert),"), "\(each.case): \(test.output)")
        }
    }

    /// Each check can fail: a heartbeat moved to 30 h fails the "no run for 28 h" case, a broken expression fails the check.
    func testPromtoolCatchesAWrongThresholdAndABrokenExpression() throws {
        let moved = try copy(rules: try rules().replacingOccurrences(of: "> 28 * 3600", with: "> 30 * 3600"), tests: try ruleTests())
        let unreachable = try copy(rules: try rules().replacingOccurrences(of: "api-unreachable|", with: ""), tests: try ruleTests())
        let tests = PromTool.testRules(in: [moved, unreachable])
        XCTAssertNotEqual(tests[0].status, 0, tests[0].output)
        XCTAssertTrue(tests[0].output.contains("WarmNoSuccessfulRun"), tests[0].output)
        XCTAssertNotEqual(tests[1].status, 0, tests[1].output)

        let broken = try copy(rules: try rules().replacingOccurrences(of: "min without (instance, pod) (warm_last_run_success) == 0",
                                                                      with: "min without (instance, pod (warm_last_run_success) == 0"),
                              tests: try ruleTests())
        let check = try PromTool.run(["check", "rules", "warm-rules.yaml"], in: broken)
        XCTAssertNotEqual(check.status, 0, check.output)
    }

    /// Every `warm_...` metric the rules name (OriginRunMetricsTests finds each on a real /metrics).
    static func metricNames() throws -> Set<String> {
        let text = try String(contentsOf: directory.appendingPathComponent("warm-rules.yaml"), encoding: .utf8)
        let names = try NSRegularExpression(pattern: #"\bwarm_[a-z_]+"#)
        return Set(names.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
    }
}
