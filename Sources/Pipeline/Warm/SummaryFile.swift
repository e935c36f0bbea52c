import Cache
import Foundation
import Logging
import WarmSupport

/// A run's two reports: the JSON summary (`--summary`, default `<state directory>/last-run.json`) and the Prometheus
/// file. Every end that reaches the cache directory writes both, so neither shows an earlier night's figures after a
/// failure; a run that finds the lock held writes neither, as they are the running job's.
public enum SummaryFile {
    /// In the run's state directory (the cache directory, or a shard's), unless `--summary` puts it elsewhere.
    public static let defaultFileName = "last-run.json"

    /// Both files, each on its own: when the summary cannot be written the Prometheus file still says so.
    static func write(_ summary: WarmSummary, configuration: WarmConfiguration, faults: FaultInjector?) throws(WarmRunError) {
        var summary = summary
        var failure: String?
        if let path = configuration.output.summaryPath {
            do {
                try replace(path, with: encoder.encode(summary), faults: faults)
            } catch {
                failure = "the summary \(path): \(error)"
                // A failure the run already had is the more useful reason; a success is one no more.
                if summary.success { (summary.success, summary.reasonCode, summary.reason) = (false, .outputUnwritable, failure) }
            }
        }
        if let path = configuration.output.prometheusPath {
            do {
                try replace(path, with: Data(PrometheusTextfile.render(summary).utf8))
            } catch {
                failure = failure ?? "the Prometheus file \(path): \(error)"
            }
        }
        if let failure { throw .output(reason: failure) }
    }

    /// A summary (or Prometheus file) that cannot be written must not leave an earlier night's in place to be read as tonight's (the origin's
    /// /metrics reads it): the old file is removed (on a full disk that frees its blocks) and the write tried once more;
    /// if that fails too, there is no summary, which no reader takes for a success. Removed rather than renamed: a
    /// renamed file keeps its blocks and would still need a name readers know to ignore.
    private static func replace(_ path: String, with data: Data, faults: FaultInjector? = nil) throws {
        func attempt() throws {
            if let code = faults?(.summaryWrite) { throw AtomicFileError(operation: "write", path: path, code: code) }
            try AtomicFile.write(data, to: path)
        }
        do {
            try attempt()
        } catch {
            guard unlink(path) == 0 else { throw error }
            try attempt()
        }
    }

    /// A run that could not start (the cache unusable, the metrics file unwritable) still reports, as far as it can;
    /// nothing when the lock was held.
    static func recordFailure(_ error: WarmRunError, configuration: WarmConfiguration, faults: FaultInjector?, logger: Logger) {
        guard let outcome = error.outcome else { return }
        var summary = WarmSummary(configuration)
        (summary.reasonCode, summary.reason) = (outcome, error.description)
        summary.lastSuccessAt = lastSuccess(at: configuration.output.summaryPath)
        do {
            try write(summary, configuration: configuration, faults: faults)
        } catch {
            logger.warning("the failed run's summary could not be written either", metadata: ["error": "\(error)"])
        }
    }

    /// `lastSuccessAt` of the summary at `path`, from an earlier run; nil when there is none or it is unreadable.
    static func lastSuccess(at path: String?) -> Date? {
        struct Earlier: Decodable { var lastSuccessAt: Date? }
        guard let path, let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? decoder.decode(Earlier.self, from: data).lastSuccessAt
    }

    /// The summary at `path`, as `warm cache serve` reads it for /metrics.
    static func read(_ path: String) throws -> WarmSummary {
        try decoder.decode(WarmSummary.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder.readable()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
