import ArgumentParser
import WarmSupport

struct Warm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "warm",
        abstract: "Warm an image cache with downsampled thumbnails, and measure what downsampling saves.",
        discussion: """
            Exit status: \(ExitStatus.documentation)

            Environment: WARM_LOG_LEVEL (trace, debug, info, notice, warning, error or critical; default info, notice \
            under --no-progress) sets which log lines reach standard error; debug adds one per retried download. \
            WARM_LOG_FORMAT (text or json; --log-format overrides it) sets their form: json writes one object a line \
            with timestamp, level, label, source, message and metadata. Any other value of either is a usage error (64).
            """,
        version: WarmVersion.current,
        subcommands: [
            DemoCommand.self, RunCommand.self, ServeCommand.self, CacheCommand.self,
            ReportCommand.self, CheckCommand.self, ThumbnailCommand.self, InspectCommand.self,
            DecodeWorkerCommand.self, MeasureServerCommand.self,
        ])
}
