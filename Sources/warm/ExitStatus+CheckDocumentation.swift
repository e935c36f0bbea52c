extension ExitStatus {
    static let checkDocumentation =
        "0 no regression (or baseline written); 1 could not read the metrics or baseline, or write the baseline; 3 at least one regression (each listed); 64 usage error."
}
