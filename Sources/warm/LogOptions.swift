import ArgumentParser

/// `--log-format` for the commands that log as they go (`run`, `demo`, `serve`, `cache serve`).
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log lines on standard error as text or json (one JSON object a line, for log pipelines).",
        discussion: "Overrides WARM_LOG_FORMAT; WARM_LOG_LEVEL sets the level (warm --help)."))
    var logFormat: LogFormat?
}
