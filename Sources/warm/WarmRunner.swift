import ArgumentParser
import Foundation
import Logging
import Pipeline

/// Runs the pipeline for `warm run` and `warm demo` and maps its end to
/// output and exit statuses. SIGTERM and SIGINT stop it gracefully (`SignalStop`).
enum WarmRunner {
    static func run(_ configuration: WarmConfiguration, options: WarmOptions, logger: Logger) async throws -> WarmSummary {
        let summary: WarmSummary
        do {
            let fetch = options.fetch.configuration(maxBodyBytes: options.maxImageSize.bytes)
            let display: ProgressDisplay = options.noProgress ? .logLines : .automatic
            let decoder = options.decoder.makeDecoder(workers: configuration.decodeConcurrency)
            summary = try await SignalStop.run(grace: .seconds(options.stopGrace.seconds), logger: logger) { stop in
                try await WarmPipeline.run(configuration, fetch: fetch, decoder: decoder, logger: logger,
                                           progress: display, stop: stop)
            }
        } catch {
            Console.error("error: \(error)")
            if case WarmRunError.locked = error { throw ExitStatus.locked }
            throw ExitStatus.failed
        }
        print(summary.oneLine)
        if summary.stoppedBySignal != nil { throw ExitStatus.stopped }
        if summary.stoppedEarly { throw ExitStatus.failed }
        if summary.manifestRebuilt { throw ExitStatus.manifestRebuilt }
        return summary
    }
}
