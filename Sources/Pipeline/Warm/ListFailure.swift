import Crawl
import Fetch
import Foundation

/// Why a run could not read the whole product list: a `RunOutcome` for machines and a sentence naming the API.
struct ListFailure: Sendable, Hashable {
    var outcome: RunOutcome
    var reason: String

    /// Page 1 failed (the crawl threw): nothing was listed, so nothing was warmed or pruned.
    init(firstPage error: any Error, api: URL) {
        let api = api.absoluteString
        switch error {
        case CrawlError.pageFetchFailed(_, _, let fetch):
            switch fetch {
            case .connection, .timeout, .deadlineExceeded: outcome = .apiUnreachable
            case .httpStatus: outcome = .apiErrorStatus
            default: outcome = .apiBadAnswer
            }
            reason = "the API at \(api) could not be read: \(Self.clause(fetch.description)); nothing was warmed or pruned."
        case let error as CrawlError:
            outcome = .apiBadAnswer
            reason = "the API at \(api) did not answer with a product list: \(Self.clause(error.description)); "
                + "nothing was warmed or pruned."
        default:
            outcome = .apiBadAnswer
            reason = "the API at \(api) could not be crawled: \(Self.clause("\(error)")); nothing was warmed or pruned."
        }
    }

    /// Page 1 was read but the list was not seen whole; nil when it was.
    init?(report: CrawlReport, api: URL) {
        let api = api.absoluteString
        if let last = report.failedPages.last {
            reason = "the product list of \(api) was not read whole: \(report.failedPages.count) page"
                + (report.failedPages.count == 1 ? "" : "s") + " failed after retries (the last: \(Self.clause(last.description))); "
                + "nothing was pruned."
        } else if report.uncoveredPositions > 0 {
            reason = "the product list of \(api) was not read whole: \(report.uncoveredPositions) of the "
                + "\(report.totalCountAtStart) products it declared were never seen, even after fetching pages again; nothing was pruned."
        } else {
            return nil
        }
        outcome = .listIncomplete
    }

    /// A sentence without its full stop, to go inside another.
    private static func clause(_ sentence: String) -> String {
        sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }
}
