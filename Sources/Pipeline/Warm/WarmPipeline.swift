import AsyncAlgorithms
import Cache
import WarmSupport
import Crawl
import Downsample
import Fetch
import Foundation
import Logging
import WarmMetrics

/// Crawler -> JobAdmission -> ImageWarmer workers, joined by channels whose `send` waits (back-pressure), so memory
/// grows with the concurrency, not the catalog (docs/architecture.md). It opens only the metrics file: the rest comes
/// in `WarmDependencies`.
public struct WarmPipeline: Sendable {
    let configuration: WarmConfiguration
    let dependencies: WarmDependencies
    let logger: Logger
    let stop: StopRequest
    let progress: SummaryRecorder
    /// nil without a metrics file.
    let metrics: MetricsRecorder?

    /// `progressBar` false: log lines even on a terminal (`--no-progress`, tests). Throws when the metrics file cannot
    /// be opened.
    init(configuration: WarmConfiguration, dependencies: WarmDependencies, logger: Logger = Logger(label: "warm"),
                progressBar: Bool = true, stop: StopRequest = StopRequest()) throws(WarmRunError) {
        self.configuration = configuration
        self.dependencies = dependencies
        self.logger = logger
        self.stop = stop
        var summary = WarmSummary(configuration)
        if let repair = dependencies.manifestRepair {
            summary.manifestRebuilt = true
            summary.manifestBrokenReason = repair.reason
            summary.manifestMovedTo = repair.movedTo
        }
        let reporter = ProgressReporter(logger: logger, interactive: progressBar && isatty(STDERR_FILENO) == 1)
        let progress = SummaryRecorder(summary: summary, progress: reporter,
                                       measureShare: configuration.measures ? configuration.measuring.compare.share : nil)
        self.progress = progress
        guard configuration.measures, let path = configuration.measuring.metricsPath else {
            metrics = nil
            return
        }
        do {
            metrics = try MetricsRecorder(path: path, configuration: configuration, pool: dependencies.measuringPool,
                                          onMeasured: { await progress.measuredOne() })
        } catch {
            throw .output(reason: "\(error)")
        }
    }

    /// Throws only when the run cannot go on; failures of single images and pages are in the summary instead.
    func run() async throws(WarmRunError) -> WarmSummary {
        let startedAt = dependencies.now()
        let clock = ContinuousClock.now
        await progress.update { $0.startedAt = startedAt }
        let ticker = startTicker()
        let end = await runStages()
        if let reason = end.stopReason {
            let signal = stop.signal
            await progress.stop(reason)
            await progress.update { $0.stoppedBySignal = signal }
            logger.error("stopping early: \(reason)")
        }
        await finishMeasuring()
        ticker.cancel()
        await progress.finishDisplay()
        return try await finish(end, startedAt: startedAt, clock: clock)
    }

    /// None without a metrics file.
    var measured: CompareSelection { metrics == nil ? .none : configuration.measuring.compare }

    /// A quiet stretch (one slow image, a long measurement) still gets its log line.
    private func startTicker() -> Task<Void, Never> {
        let progress = self.progress
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                await progress.showProgress()
            }
        }
    }

    /// Measuring may lag behind the warm: its own progress line goes on until it is done.
    private func finishMeasuring() async {
        guard let metrics else { return }
        do {
            try await metrics.finish()
        } catch {
            await progress.stop("the metrics files could not be written: \(error)")
        }
    }
}

public enum WarmRunError: Error, Sendable, CustomStringConvertible {
    case locked(path: String, holderPID: Int32?)
    case cache(CacheError)
    /// The summary, metrics or Prometheus file.
    case output(reason: String)

    /// nil for a held lock: that run writes no summary.
    var outcome: RunOutcome? {
        switch self {
        case .locked: nil
        case .cache: .cacheUnusable
        case .output: .outputUnwritable
        }
    }

    public var description: String {
        switch self {
        case .locked(let path, let pid):
            return "another warm run holds \(path)" + (pid.map { " (pid \($0))" } ?? "")
                + "; try again when it has finished. This run wrote no summary and no Prometheus file: they are the running job's"
        case .cache(let error): return "the cache cannot be used: \(error)"
        case .output(let reason): return "an output file could not be written: \(reason)"
        }
    }
}

extension WarmPipeline {
    /// What `warm run` does: builds the real parts, runs once and closes them, also when the run throws.
    public static func run(_ configuration: WarmConfiguration, decoder: (any ThumbnailDecoding)? = nil,
                           measuringPool: MeasuringPool? = nil, faults: FaultInjector? = nil, logger: Logger = Logger(label: "warm"),
                           progressBar: Bool = true,
                           stop: StopRequest = StopRequest()) async throws(WarmRunError) -> WarmSummary {
        let dependencies: WarmDependencies
        do throws(WarmRunError) {
            dependencies = try WarmDependencies.live(configuration: configuration, decoder: decoder, measuringPool: measuringPool,
                                                     faults: faults, logger: logger)
        } catch {
            await BlockingWork.run { SummaryFile.recordFailure(error, configuration: configuration, faults: faults, logger: logger) }
            throw error
        }
        let outcome: Result<WarmSummary, WarmRunError>
        do throws(WarmRunError) {
            let pipeline: WarmPipeline
            do throws(WarmRunError) {
                pipeline = try WarmPipeline(configuration: configuration, dependencies: dependencies, logger: logger,
                                            progressBar: progressBar, stop: stop)
            } catch {
                await BlockingWork.run { SummaryFile.recordFailure(error, configuration: configuration, faults: faults, logger: logger) }
                throw error
            }
            outcome = .success(try await pipeline.run())
        } catch {
            outcome = .failure(error)
        }
        await dependencies.close()
        return try outcome.get()
    }
}
