import ArgumentParser

extension ExitStatus {
    /// `warm check` found at least one regression against the baseline (each listed on stdout).
    static let regressed = ExitCode(3)

    static let checkDocumentation =
        "0 no regression (or baseline written); 1 could not read the metrics or baseline, or write the baseline; 3 at least one regression (each listed); 64 usage error."
}
