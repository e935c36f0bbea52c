/// How a run ended: the `reasonCode` of its summary and of `warm_last_run_reason`, whether it counts as a success,
/// and (in `warm`) its exit status. `decide` holds the precedence docs/running-nightly.md#exit-statuses documents.
public enum RunOutcome: String, Codable, Sendable, CaseIterable {
    case ok
    /// The manifest was broken and rebuilt; the run itself did everything (exit 5).
    case manifestRebuilt = "manifest-rebuilt"
    /// More images (and product details) failed than `--max-failed` allows (exit 2).
    case overFailureBudget = "over-failure-budget"
    /// The product-id merge or the eviction to `--max-cache-size` failed (exit 2).
    case finishStepFailed = "finish-step-failed"
    /// Page 1 got no HTTP answer: refused, DNS, timeout, reset (exit 6).
    case apiUnreachable = "api-unreachable"
    /// Page 1 answered with a status other than 2xx (exit 6).
    case apiErrorStatus = "api-error-status"
    /// Page 1 answered 2xx but not with a product page: HTML, garbage, a 304, too large, redirects (exit 6).
    case apiBadAnswer = "api-bad-answer"
    /// Page 1 was read, but pages failed or positions the API declared went unseen after the re-fetches (exit 6).
    case listIncomplete = "list-incomplete"
    /// SIGTERM or SIGINT (exit 4).
    case stoppedBySignal = "stopped-by-signal"
    /// A full disk or an unwritable metrics file stopped the run (exit 1).
    case stoppedEarly = "stopped-early"
    /// The cache directory or manifest could not be opened (exit 1).
    case cacheUnusable = "cache-unusable"
    /// The summary, the Prometheus file or the metrics file could not be written (exit 1).
    case outputUnwritable = "output-unwritable"

    /// The run did everything it was asked (failures within `--max-failed` included): `warm_last_run_success 1`.
    var isSuccess: Bool { self == .ok || self == .manifestRebuilt }

    /// The product list could not be read whole.
    var isListFailure: Bool {
        [.apiUnreachable, .apiErrorStatus, .apiBadAnswer, .listIncomplete].contains(self)
    }

    /// The first that applies wins: an end a person must act on before one that needs nothing (a rebuilt manifest: the
    /// next run exits 0); a stop or a list failure before the image failures it explains. Returns the sentence too.
    static func decide(_ summary: WarmSummary, listFailure: ListFailure?) -> (RunOutcome, String?) {
        if summary.stoppedBySignal != nil { return (.stoppedBySignal, summary.stopReason) }
        if summary.stoppedEarly { return (.stoppedEarly, summary.stopReason) }
        if let listFailure { return (listFailure.outcome, listFailure.reason) }
        if summary.failuresCounted > summary.maxFailedImages {
            let details = summary.detailsFailed > 0 ? " and \(summary.detailsFailed) of \(summary.detailsRead) product details" : ""
            return (.overFailureBudget, "\(summary.imagesFailed) of \(summary.imagesScheduled) images\(details) failed, more than "
                    + "--max-failed \(summary.maxFailed) allows (\(summary.maxFailedImages)); each is listed in failedImages.")
        }
        if !summary.finishStepsFailed.isEmpty { return (.finishStepFailed, summary.finishStepsFailed.joined(separator: "; ")) }
        if summary.manifestRebuilt {
            return (.manifestRebuilt, "the cache manifest was broken: " + (summary.manifestBrokenReason ?? "?")
                    + "; it was moved to \(summary.manifestMovedTo ?? "?") and rebuilt.")
        }
        return (.ok, nil)
    }
}
