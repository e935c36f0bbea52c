import ArgumentParser
import Logging

/// `--log-format` and `--log-level` for the commands that log as they go (`run`, `demo`, `serve`, `cache serve`).
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Log lines on standard error as text or json (one JSON object a line, for log pipelines).",
        discussion: "Overrides WARM_LOG_FORMAT."))
    var logFormat: LogFormat?

    @Option(help: ArgumentHelp(
        "The lowest level logged: trace, debug, info, notice, warning, error or critical.",
        discussion: "Overrides WARM_LOG_LEVEL. At info, `run` and `demo` log every failed image and page as it happens."))
    var logLevel: Logger.Level?
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
