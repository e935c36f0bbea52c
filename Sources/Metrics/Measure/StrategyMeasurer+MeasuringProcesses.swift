import ChildProcesses
import Downsample
import Foundation

extension StrategyMeasurer {
    /// `PeakIsolation.measuringProcesses`: every repeat of every strategy runs
    /// in a child forked by a measuring process (`MeasuringServer`), spread
    /// over the pool's processes, and the lowest peak per strategy is kept
    /// with that run's CPU and wall time; close calls between naive and
    /// renderer get `closeCallRepeats` more runs each. SSIM and PSNR come from
    /// one more child that decodes unmeasured. The image is handed over in a
    /// temporary file, removed afterwards.
    func measureInMeasuringProcesses(data: Data, productId: Int?, url: String, pool: MeasuringPool) async -> ImageMetricsRecord {
        // Reading the header and writing the hand-over file block: on the blocking-work pool.
        let peakMethod: PeakMethod = configuration.preferredPeakMethod == .vipsTracked ? .vipsTracked : .forkedProcess
        let (record, handedOver) = await BlockingWork.run { [self] () -> (ImageMetricsRecord, String?) in
            let (started, opened) = startRecord(data: data, productId: productId, url: url, peakMethod: peakMethod)
            var record = started
            guard opened != nil else { return (record, nil) }
            let file = handOver(data, failureIn: &record)
            return (record, file)
        }
        guard let file = handedOver else { return record }
        defer { try? FileManager.default.removeItem(atPath: file) }
        var fold = ReplyFold(record: record)
        func request(_ job: MeasureRequest.Job) -> MeasureRequest {
            MeasureRequest(job: job, imagePath: file, target: configuration.target, limits: configuration.limits,
                           peakMethod: fold.record.peakMethod ?? peakMethod)
        }

        var first: [MeasureRequest] = []
        for kind in StrategyKind.allCases {
            first += Array(repeating: request(.init(kind)), count: configuration.repeats(of: kind))
        }
        // Quality last: its scores land on the strategies' metrics once those exist.
        if configuration.quality { first.append(request(.quality)) }
        fold.add(first, await pool.run(first))

        if isCloseCall(fold.record) {
            let again = Array(repeating: request(.naive), count: configuration.closeCallRepeats)
                + Array(repeating: request(.renderer), count: configuration.closeCallRepeats)
            fold.add(again, await pool.run(again))
        }
        return fold.record
    }
}

/// Folds measuring processes' replies into one image's record: the lowest
/// peak per strategy, the first failure, the quality scores.
private struct ReplyFold {
    var record: ImageMetricsRecord
    /// Strategies that failed once: later replies for them are ignored.
    private var failed = Set<StrategyKind>()

    init(record: ImageMetricsRecord) {
        self.record = record
    }

    mutating func add(_ requests: [MeasureRequest], _ replies: [MeasureReply]) {
        for (request, reply) in zip(requests, replies) {
            if request.job == .quality {
                addScores(reply)
            } else if let kind = request.job.strategy, !failed.contains(kind) {
                addMeasurement(kind, reply)
            }
        }
    }

    private mutating func addScores(_ reply: MeasureReply) {
        for (name, scores) in reply.scores ?? [:] {
            guard let kind = StrategyKind(rawValue: name) else { continue }
            record.strategies[kind]?.ssim = scores.ssim
            record.strategies[kind]?.psnr = scores.psnr
        }
    }

    private mutating func addMeasurement(_ kind: StrategyKind, _ reply: MeasureReply) {
        guard let metrics = reply.report?.metrics else {
            if let failure = reply.failure {
                record.failStrategy(kind, "measuring the \(kind.rawValue) decode failed: \(failure)", reason: "measurement-failed")
            } else {
                record.failStrategy(kind, "the \(kind.rawValue) decode failed: \(reply.report?.error ?? "no reason given")",
                                    reason: reply.report?.errorReason)
            }
            failed.insert(kind)
            return
        }
        if reply.report?.peakMethod == .vipsTracked { record.peakMethod = .vipsTracked }
        if let best = record.strategies[kind], !metrics.hasLowerPeak(than: best) { return }
        let scores = (record.strategies[kind]?.ssim, record.strategies[kind]?.psnr)
        record.strategies[kind] = metrics
        record.strategies[kind]?.ssim = scores.0
        record.strategies[kind]?.psnr = scores.1
    }
}
