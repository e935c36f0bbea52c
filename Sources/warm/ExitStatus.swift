import ArgumentParser

/// The exit statuses every command uses, documented in docs/running-nightly.md and `--help`.
enum ExitStatus {
    /// The run could not go on (API unreachable, disk full, cache unusable).
    static let failed = ExitCode(1)
    /// The run finished, but some images (or pages) failed; each was reported.
    static let someFailed = ExitCode(2)
    /// `warm check` found at least one regression against the baseline (each listed).
    static let regressed = ExitCode(3)
    /// Stopped gracefully by SIGTERM or SIGINT (summary written, cache consistent); not 143/130, which
    /// say the process died by the signal without cleaning up.
    static let stopped = ExitCode(4)
    /// The cache manifest was unreadable (corrupt, truncated, not a file): it
    /// was moved aside and rebuilt, and the run went on; the next run exits 0.
    static let manifestRebuilt = ExitCode(5)
    /// `warm check` could not compare the metrics with the baseline as they are (too few of its images, peaks it
    /// measured and the metrics did not, another target size, format or quality); each reason is printed.
    static let checkIncomparable = ExitCode(7)
    /// Another run holds the cache directory's lock (EX_TEMPFAIL: try later).
    static let locked = ExitCode(75)

    static let documentation =
        "0 all done; 1 could not run; 2 some images failed (each reported); 3 warm check found a regression; 4 stopped by SIGTERM or SIGINT after writing its summary (the next run finishes); 5 the cache manifest was broken and has been rebuilt (the next run exits 0); 64 usage or configuration error; 75 cache directory locked by another run."
    static let checkDocumentation =
        "0 no regression (or baseline written); 1 could not read the metrics or baseline, or write a file; 3 at least one regression (each listed); 7 the metrics cannot stand for the baseline: fewer of its images compared than --min-compared, peaks it measured missing (without --sizes-only), or another target size, format or quality (each reason listed; wins over 3); 64 usage error."
}
