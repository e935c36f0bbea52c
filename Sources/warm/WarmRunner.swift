import ArgumentParser
import Foundation
import Logging
import Pipeline

/// Runs the pipeline for `warm run` and `warm demo` and maps its end to
/// output and exit statuses.
enum WarmRunner {
    static func run(_ configuration: WarmConfiguration, options: WarmOptions, logger: Logger) async throws -> WarmSummary {
        let summary: WarmSummary
        do {
            summary = try await WarmPipeline.run(
                configuration, fetch: options.fetchConfiguration,
                decoder: options.decoder.makeDecoder(workers: configuration.decodeConcurrency),
                logger: logger, progress: options.noProgress ? .logLines : .automatic)
        } catch {
            Console.error("error: \(error)")
            if case .locked = error { throw ExitStatus.locked }
            throw ExitStatus.failed
        }
        print(summary.oneLine)
        if summary.stoppedEarly { throw ExitStatus.failed }
        return summary
    }
}
