import ArgumentParser

/// The exit statuses every command uses, documented in docs/running-nightly.md and `--help`.
enum ExitStatus {
    /// Everything was done.
    static let success = ExitCode(0)
    /// The run could not go on (API unreachable, disk full, cache unusable).
    static let failed = ExitCode(1)
    /// The run finished, but some images (or pages) failed; each was reported.
    static let someFailed = ExitCode(2)
    /// Bad arguments or configuration (argument-parser's own status).
    static let usage = ExitCode.validationFailure
    /// `warm check` found at least one regression against the baseline (each listed).
    static let regressed = ExitCode(3)
    /// Another run holds the cache directory's lock (EX_TEMPFAIL: try later).
    static let locked = ExitCode(75)

    static let documentation =
        "0 all done; 1 could not run; 2 some images failed (each reported); 3 warm check found a regression; 64 usage or configuration error; 75 cache directory locked by another run."
}
