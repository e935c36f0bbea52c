import ArgumentParser
import Pipeline
import WarmMetrics

/// Which images `warm run` and `warm demo` measure with all three strategies
/// beyond their own `--compare`, and where the records go.
struct CompareOptions: ParsableArguments {
    @Option(help: "Measure about one image in N (chosen by URL hash, the same every run); overrides --compare.")
    var compareOneIn: Int?

    @Option(help: "Metrics file (JSON Lines; a CSV is written beside it). Default: metrics.jsonl in the run's state directory (warm demo: in --dir).")
    var metrics: String?

    func validate() throws {
        if let n = compareOneIn, n < 1 { throw ValidationError("--compare-one-in must be at least 1.") }
    }

    /// `--compare-one-in` when given, else what the command's `--compare` chose.
    func selection(otherwise chosen: CompareSelection) -> CompareSelection {
        compareOneIn.map { .oneIn($0) } ?? chosen
    }

    /// What is measured and where it goes (no file when nothing is measured); `defaultPath` without `--metrics`.
    func settings(_ compare: CompareSelection, repeats: StrategyMeasurer.Repeats, defaultPath: String) -> WarmConfiguration.Measuring {
        WarmConfiguration.Measuring(compare: compare, metricsPath: compare == .none ? nil : metrics ?? defaultPath, repeats: repeats)
    }
}
