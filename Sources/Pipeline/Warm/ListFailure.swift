import Crawl
import Fetch
import Foundation

/// Why a run could not read the whole list of images: a `RunOutcome` for machines and a sentence naming the source.
struct ListFailure: Sendable, Hashable {
    var outcome: RunOutcome
    var reason: String

    /// Page 1 failed (the crawl threw), or a source read whole (a URL list, a sitemap) could not be: nothing was
    /// listed, so nothing was warmed or pruned.
    init(firstPage error: any Error, source: CatalogSource) {
        switch error {
        case CrawlError.pageFetchFailed(_, _, let fetch):
            outcome = Self.outcome(of: fetch)
            reason = "\(source) could not be read: \(Self.clause(fetch.description)); nothing was warmed or pruned."
        case let error as SitemapError:
            if case .fetchFailed(_, let fetch) = error { outcome = Self.outcome(of: fetch) } else { outcome = .apiBadAnswer }
            reason = "\(source) could not be read whole: \(Self.clause(error.description).lowercasedFirst); "
                + "nothing was warmed or pruned."
        case let error as CrawlError:
            outcome = .apiBadAnswer
            reason = "\(source) did not answer with a product list: \(Self.clause(error.description)); "
                + "nothing was warmed or pruned."
        case let error as URLListError:
            outcome = .apiBadAnswer
            reason = "\(source) could not be used: \(Self.clause(error.description).lowercasedFirst); nothing was warmed or pruned."
        default:
            outcome = .apiBadAnswer
            reason = "\(source) could not be crawled: \(Self.clause("\(error)")); nothing was warmed or pruned."
        }
    }

    private static func outcome(of fetch: FetchError) -> RunOutcome {
        switch fetch {
        case .connection, .timeout, .deadlineExceeded: .apiUnreachable
        case .httpStatus: .apiErrorStatus
        default: .apiBadAnswer
        }
    }

    /// A source read whole whose entries were not all image URLs: what they named was warmed, nothing pruned.
    init(problems: ListingProblems, source: CatalogSource) {
        outcome = .listIncomplete
        let first = problems.kept.first.map { " (the first: \(Self.clause($0.description)))" } ?? ""
        reason = "\(source) was not read whole: \(problems.count) entr\(problems.count == 1 ? "y was" : "ies were") not image "
            + "URLs\(first); nothing was pruned."
    }

    /// Page 1 was read but the list was not seen whole; nil when it was.
    init?(report: CrawlReport, source: CatalogSource) {
        let api = source.location
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

extension String {
    /// "The sitemap ..." as it reads inside another sentence.
    fileprivate var lowercasedFirst: String { prefix(1).lowercased() + dropFirst() }
}
