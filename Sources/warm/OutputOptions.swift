import ArgumentParser
import Pipeline

/// What `warm run` and `warm demo` write besides the cache, and what they say while running (`--help`'s "Output").
struct OutputOptions: ParsableArguments {
    @Option(help: "Write the JSON summary of the run here (default: <cache-dir>/last-run.json).")
    var summary: String?

    @Option(help: "Write Prometheus text-format metrics here, for node_exporter's textfile collector.")
    var prometheusFile: String?

    @Option(help: "After the run, write the app manifest here (JSON Lines, as `warm cache export` writes it).")
    var export: String?

    @Flag(help: ArgumentHelp(
        "No progress bar and no progress lines: a good run prints only its summary line (for cron).",
        discussion: "Log lines then start at notice unless --log-level or WARM_LOG_LEVEL says otherwise: a run within its failure budget writes nothing to standard error (its failures are counted in the summary line and listed in last-run.json); a run that fails names its failed images and pages there."))
    var noProgress = false

    /// `defaultSummary` without `--summary`.
    func paths(defaultSummary: String) -> WarmConfiguration.Output {
        WarmConfiguration.Output(summaryPath: summary ?? defaultSummary, prometheusPath: prometheusFile, exportPath: export)
    }
}
