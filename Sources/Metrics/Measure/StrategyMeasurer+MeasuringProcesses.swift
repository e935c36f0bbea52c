import Downsample
import Foundation

extension StrategyMeasurer {
    /// `PeakIsolation.measuringProcesses`: every repeat of every strategy runs
    /// in a child forked by a measuring process (`MeasuringServer`), spread
    /// over the pool's processes, and the lowest peak per strategy is kept
    /// with that run's CPU and wall time; close calls between naive and
    /// renderer get `closeCallRepeats` more runs each. SSIM and PSNR come from
    /// one more child that decodes unmeasured. The image is handed over in a
    /// temporary file, removed afterwards. Blocks until done.
    func measureInMeasuringProcesses(data: Data, productId: Int?, url: String, pool: MeasuringPool) -> ImageMetricsRecord {
        let (started, opened) = startRecord(data: data, productId: productId, url: url,
                                           peakMethod: configuration.preferredPeakMethod == .vipsTracked ? .vipsTracked : .forkedProcess)
        var record = started
        guard opened != nil else { return record }

        guard let file = handOver(data, failureIn: &record) else { return record }
        defer { try? FileManager.default.removeItem(atPath: file) }
        func request(_ job: MeasureRequest.Job) -> MeasureRequest {
            MeasureRequest(job: job, imagePath: file, target: configuration.target, limits: configuration.limits,
                           peakMethod: record.peakMethod)
        }
        var failed = Set<StrategyKind>()
        func fold(_ requests: [MeasureRequest], _ replies: [MeasureReply]) {
            for (request, reply) in zip(requests, replies) {
                guard let kind = request.job.strategy, !failed.contains(kind) else {
                    if request.job == .quality {
                        for (name, scores) in reply.scores ?? [:] {
                            guard let kind = StrategyKind(rawValue: name) else { continue }
                            record.strategies[kind]?.ssim = scores.ssim
                            record.strategies[kind]?.psnr = scores.psnr
                        }
                    }
                    continue
                }
                guard let metrics = reply.report?.metrics else {
                    if record.error == nil {
                        if let failure = reply.failure {
                            record.error = "measuring the \(kind.rawValue) decode failed: \(failure)"
                            record.errorReason = "measurement-failed"
                        } else {
                            record.error = "the \(kind.rawValue) decode failed: \(reply.report?.error ?? "no reason given")"
                            record.errorReason = reply.report?.errorReason
                        }
                    }
                    failed.insert(kind)
                    record.strategies[kind] = nil
                    continue
                }
                if reply.report?.peakMethod == .vipsTracked { record.peakMethod = .vipsTracked }
                if let best = record.strategies[kind], best.peakBytes <= metrics.peakBytes { continue }
                let scores = (record.strategies[kind]?.ssim, record.strategies[kind]?.psnr)
                record.strategies[kind] = metrics
                record.strategies[kind]?.ssim = scores.0
                record.strategies[kind]?.psnr = scores.1
            }
        }

        var first: [MeasureRequest] = []
        for kind in StrategyKind.allCases {
            first += Array(repeating: request(.init(kind)), count: configuration.repeats(of: kind))
        }
        // Quality last: its scores land on the strategies' metrics once those exist.
        if configuration.quality { first.append(request(.quality)) }
        fold(first, pool.run(first))

        // A close call: renderer holds its canvas on top of all naive holds, so a
        // lowest renderer peak less than a canvas above naive's is noise in one of
        // the two. Both get more runs; each lowest peak can only fall toward its floor.
        if let naive = record.strategies[.naive], let renderer = record.strategies[.renderer],
           renderer.peakBytes < naive.peakBytes + renderer.retainedBytes, configuration.closeCallRepeats > 0 {
            let again = Array(repeating: request(.naive), count: configuration.closeCallRepeats)
                + Array(repeating: request(.renderer), count: configuration.closeCallRepeats)
            fold(again, pool.run(again))
        }
        return record
    }
}
