import Downsample
import Foundation

extension StrategyMeasurer {
    /// `PeakIsolation.childProcess`: every repeat of every strategy runs in a
    /// fresh child (`IsolatedStrategyRun`) and the lowest peak per strategy is
    /// kept, with that run's CPU and wall time (close calls between naive and
    /// renderer get `closeCallRepeats` more runs each); this process then decodes the
    /// image once per strategy, unmeasured, for SSIM and PSNR. The image is
    /// handed over in a temporary file, removed afterwards.
    func measureInChildProcesses(data: Data, productId: Int?, url: String, executable: String) -> ImageMetricsRecord {
        // The header is read here (no pixels), so an image the limits refuse
        // never reaches a child.
        let (started, opened) = startRecord(data: data, productId: productId, url: url,
                                           peakMethod: configuration.preferredPeakMethod == .vipsTracked ? .vipsTracked : .freshProcess)
        var record = started
        guard let source = opened else { return record }

        guard let file = handOver(data, failureIn: &record) else { return record }
        defer { try? FileManager.default.removeItem(atPath: file) }

        /// Runs `kind` in `times` fresh children, keeping the lowest peak so
        /// far; false (with the error recorded) when one fails.
        func measure(_ kind: StrategyKind, times: Int) -> Bool {
            let run = IsolatedStrategyRun(kind: kind, imagePath: file, target: configuration.target,
                                          limits: configuration.limits, preferredPeakMethod: record.peakMethod)
            for _ in 0..<times {
                switch run.run(executable: executable) {
                case .success(let report):
                    guard let metrics = report.metrics else {
                        if record.error == nil {
                            record.error = "the \(kind.rawValue) decode failed: \(report.error ?? "no reason given")"
                            record.errorReason = report.errorReason
                        }
                        record.strategies[kind] = nil
                        return false
                    }
                    if report.peakMethod == .vipsTracked { record.peakMethod = .vipsTracked }
                    if let best = record.strategies[kind], best.peakBytes <= metrics.peakBytes { continue }
                    record.strategies[kind] = metrics
                case .failure(let failure):
                    if record.error == nil {
                        record.error = "measuring the \(kind.rawValue) decode failed: \(failure)"
                        record.errorReason = "measurement-failed"
                    }
                    record.strategies[kind] = nil
                    return false
                }
            }
            return true
        }

        for kind in StrategyKind.allCases {
            _ = measure(kind, times: configuration.repeats(of: kind))
        }
        // A close call: renderer holds its canvas on top of all naive holds,
        // so a lowest renderer peak less than a canvas above naive's is run-
        // to-run noise in one of the two. Both get more runs; each lowest
        // peak can only fall toward its floor.
        if let naive = record.strategies[.naive], let renderer = record.strategies[.renderer],
           renderer.peakBytes < naive.peakBytes + renderer.retainedBytes, configuration.closeCallRepeats > 0 {
            if measure(.naive, times: configuration.closeCallRepeats) {
                _ = measure(.renderer, times: configuration.closeCallRepeats)
            }
        }

        if configuration.quality {
            var outputs: [StrategyKind: DecodedImage] = [:]
            for kind in StrategyKind.allCases where record.strategies[kind] != nil {
                outputs[kind] = try? kind.strategy.decode(source, target: configuration.target)
            }
            addQuality(to: &record, outputs: outputs, source: source)
        }
        return record
    }
}

extension StrategyMeasurer {
    /// Writes the image to a temporary file for a measuring process (the
    /// caller removes it); nil, with the failure in `record`, when it cannot.
    func handOver(_ data: Data, failureIn record: inout ImageMetricsRecord) -> String? {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("warm-measure-\(getpid())-\(UUID().uuidString)").path
        do {
            try data.write(to: URL(fileURLWithPath: file))
        } catch {
            try? FileManager.default.removeItem(atPath: file)
            record.error = "the image could not be handed to the measuring process (\(file)): \(error.localizedDescription)"
            record.errorReason = "measurement-failed"
            return nil
        }
        return file
    }
}
