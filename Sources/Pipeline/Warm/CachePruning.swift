import Cache
import Crawl
import Logging

/// The prune step at the end of `warm run`: marks every cache row whose URL a
/// listed product named as seen now, and, when the run saw the whole product
/// list, removes the rows (and files) not seen for longer than
/// `pruneAfterSeconds`. An image is not gone because its page failed, so an
/// incomplete list prunes nothing. Costs one UPDATE per 500 URLs and one
/// indexed scan; blocks its thread like every cache call (the run calls it
/// through `CacheIO`).
struct CachePruning: Sendable {
    /// Rows listed in this run get this time; with `pruneAfterSeconds` 0 the
    /// cutoff is this time, so exactly what this run did not see goes.
    let runStartedAt: Double
    let pruneAfterSeconds: Double?
    let logger: Logger

    /// Why a finished crawl did not see the whole list, or nil.
    static func incompleteness(of report: CrawlReport) -> String? {
        if !report.failedPages.isEmpty { return "\(report.failedPages.count) list pages failed" }
        if report.uncoveredPositions > 0 { return "\(report.uncoveredPositions) list positions were never seen" }
        return nil
    }

    func run(on cache: DiskCache, listed: [CanonicalURL],
             listIncompleteReason: String?) -> (result: PruneResult, skippedReason: String?) {
        do {
            try cache.markListed(urls: listed, at: runStartedAt)
        } catch {
            logger.warning("could not record which images are still listed; pruning nothing", metadata: ["error": "\(error)"])
            return (PruneResult(), "the listed images could not be recorded: \(error)")
        }
        guard let pruneAfterSeconds else { return (PruneResult(), nil) }
        if let listIncompleteReason {
            logger.notice("not pruning: the run did not see the whole product list", metadata: ["reason": "\(listIncompleteReason)"])
            return (PruneResult(), listIncompleteReason)
        }
        do {
            return (try cache.prune(listedBefore: runStartedAt - pruneAfterSeconds), nil)
        } catch {
            logger.warning("pruning failed", metadata: ["error": "\(error)"])
            return (PruneResult(), "pruning failed: \(error)")
        }
    }
}
