@testable import Crawl
@testable import Fetch
import Foundation
@testable import Pipeline
import XCTest

/// The precedence that picks a run's `reasonCode` (and so its exit status), the failure budget's arithmetic, and how a
/// failed page 1 is classified.
final class RunOutcomeTests: XCTestCase {
    private let api = URL(string: "https://market.example/")!

    private func summary(failed: Int = 0, scheduled: Int = 200, budget: FailureBudget = .default) -> WarmSummary {
        var summary = WarmSummary()
        summary.imagesScheduled = scheduled
        summary.imagesFailed = failed
        summary.maxFailed = budget.description
        summary.maxFailedImages = budget.images(scheduled: scheduled)
        return summary
    }

    func testTheBudgetIsACountOrAShareRoundedDown() {
        XCTAssertEqual(FailureBudget("5"), .count(5))
        XCTAssertEqual(FailureBudget("1%"), .percent(1))
        XCTAssertEqual(FailureBudget("0.5 %"), .percent(0.5))
        for bad in ["-1", "101%", "1.5", "abc", "", "%", "nan%", "inf%"] { XCTAssertNil(FailureBudget(bad), bad) }
        XCTAssertEqual(FailureBudget.percent(1).images(scheduled: 200), 2)
        XCTAssertEqual(FailureBudget.percent(1).images(scheduled: 199), 1)
        XCTAssertEqual(FailureBudget.percent(1).images(scheduled: 40), 0, "a small catalog tolerates nothing at 1%")
        XCTAssertEqual(FailureBudget.count(5).images(scheduled: 3), 5)
        XCTAssertEqual(FailureBudget.default.description, "1%")
    }

    func testFailuresWithinTheBudgetSucceedAndOneMoreFails() {
        XCTAssertEqual(RunOutcome.decide(summary(failed: 2), listFailure: nil).0, .ok)
        let (over, sentence) = RunOutcome.decide(summary(failed: 3), listFailure: nil)
        XCTAssertEqual(over, .overFailureBudget)
        XCTAssertEqual(sentence, "3 of 200 images failed, more than --max-failed 1% allows (2); each is listed in failedImages.")
        XCTAssertFalse(over.isSuccess)
    }

    func testTheFirstEndThatAppliesWins() {
        let unreadable = ListFailure(firstPage: CrawlError.pageDidNotParse(pageNo: 1, url: api, problem: "HTML"), source: .openMarket(api: api))
        var everything = summary(failed: 50)
        everything.manifestRebuilt = true
        everything.finishStepsFailed = ["the eviction failed"]
        everything.stoppedEarly = true
        everything.stopReason = "received SIGTERM"
        everything.stoppedBySignal = "SIGTERM"
        XCTAssertEqual(RunOutcome.decide(everything, listFailure: unreadable).0, .stoppedBySignal)
        everything.stoppedBySignal = nil
        XCTAssertEqual(RunOutcome.decide(everything, listFailure: unreadable).0, .stoppedEarly)
        everything.stoppedEarly = false
        XCTAssertEqual(RunOutcome.decide(everything, listFailure: unreadable).0, .apiBadAnswer)
        XCTAssertEqual(RunOutcome.decide(everything, listFailure: nil).0, .overFailureBudget)
        everything.imagesFailed = 0
        XCTAssertEqual(RunOutcome.decide(everything, listFailure: nil).0, .finishStepFailed)
        everything.finishStepsFailed = []
        let rebuilt = RunOutcome.decide(everything, listFailure: nil).0
        XCTAssertEqual(rebuilt, .manifestRebuilt)
        XCTAssertTrue(rebuilt.isSuccess, "a rebuilt manifest is reported, but the run did everything")
    }

    func testAFailedFirstPageIsClassifiedAndNamesTheAPI() {
        let page = URL(string: "https://market.example/api/products?page_no=1")!
        let cases: [(FetchError, RunOutcome)] = [
            (.connection(url: page, reason: "Connection refused", attempts: 4), .apiUnreachable),
            (.timeout(url: page, timeoutSeconds: 30, attempts: 4), .apiUnreachable),
            (.httpStatus(url: page, status: 404, attempts: 1), .apiErrorStatus),
            (.httpStatus(url: page, status: 503, attempts: 4), .apiErrorStatus),
            (.tooManyRedirects(url: page, maxRedirects: 5), .apiBadAnswer),
        ]
        for (error, expected) in cases {
            let failure = ListFailure(firstPage: CrawlError.pageFetchFailed(pageNo: 1, url: page, error: error), source: .openMarket(api: api))
            XCTAssertEqual(failure.outcome, expected, "\(error)")
            XCTAssertTrue(failure.reason.hasPrefix("the API at https://market.example/ could not be read: "), failure.reason)
            XCTAssertTrue(failure.outcome.isListFailure)
        }
        var report = CrawlReport()
        XCTAssertNil(ListFailure(report: report, source: .openMarket(api: api)), "a list read whole")
        report.uncoveredPositions = 7
        report.totalCountAtStart = 700
        XCTAssertEqual(ListFailure(report: report, source: .openMarket(api: api))?.outcome, .listIncomplete)
    }
}
