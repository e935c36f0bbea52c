import ArgumentParser
import Pipeline

/// The exit statuses every command uses, documented in docs/running-nightly.md and `--help`.
enum ExitStatus {
    /// The run could not go on (API unreachable, disk full, cache unusable).
    static let failed = ExitCode(1)
    /// The run finished, but more images failed than `--max-failed` allows, or a step after the warm failed; each was
    /// reported. (`warm thumbnail` and `inspect`: some files failed.)
    static let someFailed = ExitCode(2)
    /// `warm check` found at least one regression against the baseline (each listed).
    static let regressed = ExitCode(3)
    /// Stopped gracefully by SIGTERM or SIGINT (summary written, cache consistent); not 143/130, which
    /// say the process died by the signal without cleaning up.
    static let stopped = ExitCode(4)
    /// The cache manifest was unreadable (corrupt, truncated, not a file): it
    /// was moved aside and rebuilt, and the run went on; the next run exits 0.
    static let manifestRebuilt = ExitCode(5)
    /// The product list could not be read whole (the API unreachable, an error status, an answer that is not its
    /// JSON, pages that failed for good): nothing was pruned, and no image failure budget covers it.
    static let listUnreadable = ExitCode(6)
    /// `warm check` could not compare the metrics with the baseline as they are (too few of its images, peaks it
    /// measured and the metrics did not, another target size, format or quality); each reason is printed.
    static let checkIncomparable = ExitCode(7)
    /// Another run holds the cache directory's lock (EX_TEMPFAIL: try later).
    static let locked = ExitCode(75)

    /// The status of a run that ended with `outcome`; nil for 0. The precedence is `RunOutcome.decide`'s.
    static func of(_ outcome: RunOutcome) -> ExitCode? {
        switch outcome {
        case .ok: nil
        case .manifestRebuilt: manifestRebuilt
        case .overFailureBudget, .finishStepFailed: someFailed
        case .apiUnreachable, .apiErrorStatus, .apiBadAnswer, .listIncomplete: listUnreadable
        case .stoppedBySignal: stopped
        case .stoppedEarly, .cacheUnusable, .outputUnwritable: failed
        }
    }

    static let documentation =
        "0 all done (image failures within --max-failed included); 1 could not run; 2 more images failed than --max-failed allows, or a step after the warm failed (each reported); 3 warm check found a regression; 4 stopped by SIGTERM or SIGINT after writing its summary (the next run finishes); 5 the cache manifest was broken and has been rebuilt (the next run exits 0); 6 the product list could not be read whole (API unreachable, error status, not its JSON, pages failed; nothing pruned); 7 warm check could not compare the metrics with its baseline; 64 usage or configuration error; 75 cache directory locked by another run (nothing written)."
    static let checkDocumentation =
        "0 no regression (or baseline written); 1 could not read the metrics or baseline, or write a file; 3 at least one regression (each listed); 7 the metrics cannot stand for the baseline: fewer of its images compared than --min-compared, decoded pixels not counted on either side, other decoders, or another target size, format or quality (each reason listed; wins over 3); 64 usage error. Advisory warnings (peaks, CPU time) never change the status."
}
