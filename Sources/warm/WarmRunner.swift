import ArgumentParser
import Foundation
import Logging
import Pipeline
import Downsample
import Fetch

/// Runs the pipeline for `warm run` and `warm demo` and maps its end to
/// output and exit statuses.
enum WarmRunner {
    static func run(_ configuration: WarmConfiguration, fetch: FetchConfiguration = FetchConfiguration(),
                    decoder decoderOptions: DecoderOptions, progress: Bool, logger: Logger) async throws -> WarmSummary {
        // Large buffers (downloaded images, bitmaps) come and go by the thousand:
        // with glibc's defaults their freed memory stays resident in per-thread
        // arenas and the peak creeps up with the length of the run. Mapping
        // anything over 256 KiB on its own and capping the arenas at 2 returns
        // it on free, so memory follows the work in flight, not the catalog
        // (measured: peak RSS over 1,336 products 519 MB -> 206 MB; README).
        _ = ProcessAllocator.fixMmapThreshold(bytes: 256 * 1024)
        _ = ProcessAllocator.limitArenas(to: 2)
        let decoder = decoderOptions.makeDecoder(workers: configuration.decodeConcurrency)
        let pipeline = WarmPipeline(configuration: configuration, fetchConfiguration: fetch, decoder: decoder, logger: logger)
        let outcome: Result<WarmSummary, WarmRunError>
        do {
            outcome = .success(try await pipeline.run(interactiveProgress: progress ? nil : false))
        } catch {
            outcome = .failure(error)
        }
        await decoder.shutdown()
        let summary: WarmSummary
        do {
            summary = try outcome.get()
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
