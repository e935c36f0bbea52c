import ChildProcesses
import Downsample
import Foundation

extension StrategyMeasurer {
    /// `PeakIsolation.measuringProcesses`: every repeat of every strategy runs
    /// in a child forked by a measuring process (`MeasuringServer`), spread
    /// over the pool's processes (naive and renderer `exactPeakRepeats` times
    /// when the children read peaks exactly, the usual repeats when one fell
    /// back to `VmHWM`), and the lowest peak per strategy is kept
    /// with that run's CPU and wall time; close calls between naive and
    /// renderer get `closeCallRepeats` more runs each (twice, if renderer is
    /// still below naive after the first round). SSIM and PSNR come from
    /// the first renderer run's child, after its span: it scores its own
    /// output and decodes the rest unmeasured (a child of their own only
    /// when that renderer run failed). The image is handed over in a
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
        func request(_ job: MeasureRequest.Job, scoresQuality: Bool = false) -> MeasureRequest {
            MeasureRequest(job: job, imagePath: file, target: configuration.target, limits: configuration.limits,
                           peakMethod: fold.record.peakMethod ?? peakMethod, scoresQuality: scoresQuality)
        }

        let exact = peakMethod == .forkedProcess
        var first: [MeasureRequest] = []
        for kind in StrategyKind.allCases {
            let count = configuration.repeats(of: kind, pixels: record.pixelCount, exactPeaks: exact)
            // Renderer's first run scores too, after its span; it goes first, as the longest job.
            let scoring = kind == .renderer && configuration.quality
            first += Array(repeating: request(.init(kind)), count: count - (scoring ? 1 : 0))
            if scoring { first.insert(request(.renderer, scoresQuality: true), at: 0) }
        }
        fold.add(first, await pool.run(first))
        if exact && fold.record.peakMethod != .forkedProcess {
            // A child fell back to VmHWM: the runs exact peaks made unneeded are made after all.
            var more: [MeasureRequest] = []
            for kind in [StrategyKind.naive, .renderer] {
                let missing = configuration.repeats(of: kind, pixels: record.pixelCount)
                    - configuration.repeats(of: kind, pixels: record.pixelCount, exactPeaks: true)
                more += Array(repeating: request(.init(kind)), count: max(0, missing))
            }
            fold.add(more, await pool.run(more))
        }
        if configuration.quality && !fold.hasScores {
            let quality = [request(.quality)]
            fold.add(quality, await pool.run(quality))
        }

        var rounds = 0
        while needsCloseCallRound(fold.record, roundsDone: rounds) {
            let again = Array(repeating: request(.naive), count: configuration.closeCallRepeats)
                + Array(repeating: request(.renderer), count: configuration.closeCallRepeats)
            fold.add(again, await pool.run(again))
            rounds += 1
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

    /// True once a reply carried the quality scores.
    private(set) var hasScores = false

    /// Measurements first, then scores: scores land on the strategies' metrics once those exist.
    mutating func add(_ requests: [MeasureRequest], _ replies: [MeasureReply]) {
        for (request, reply) in zip(requests, replies) {
            if let kind = request.job.strategy, !failed.contains(kind) {
                addMeasurement(kind, reply)
            }
        }
        for reply in replies where reply.scores != nil {
            addScores(reply)
        }
    }

    private mutating func addScores(_ reply: MeasureReply) {
        hasScores = true
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
        // A child that fell back to another peak method says so on the record.
        if let method = reply.report?.peakMethod, method == .vipsTracked || method == .forkedProcessHighWaterMark {
            record.peakMethod = method
        }
        if let best = record.strategies[kind], !metrics.hasLowerPeak(than: best) { return }
        let scores = (record.strategies[kind]?.ssim, record.strategies[kind]?.psnr)
        record.strategies[kind] = metrics
        record.strategies[kind]?.ssim = scores.0
        record.strategies[kind]?.psnr = scores.1
    }
}
