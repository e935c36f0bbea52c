import ArgumentParser
import Foundation
import Logging
import Pipeline

/// Runs the pipeline for `warm run` and `warm demo` and maps its end to
/// output and exit statuses.
enum WarmRunner {
    static func run(_ configuration: WarmConfiguration, progress: Bool, logger: Logger) async throws -> WarmSummary {
        let pipeline = WarmPipeline(configuration: configuration, logger: logger)
        let summary: WarmSummary
        do {
            summary = try await pipeline.run(interactiveProgress: progress ? nil : false)
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
