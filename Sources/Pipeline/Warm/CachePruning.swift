import Cache
import Crawl
import Logging

/// Marks listed URLs as seen, then prunes rows unseen for `pruneAfterSeconds`, but only after a complete list: an
/// image is not gone because its page failed. Blocks its thread (call it through `CacheIO`).
struct CachePruning: Sendable {
    /// With `pruneAfterSeconds` 0 the cutoff is this time, so exactly what this run did not see goes.
    let runStartedAt: Double
    let pruneAfterSeconds: Double?
    let logger: Logger

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
