import Downsample
import Foundation

extension StrategyMeasurer {
    /// `PeakIsolation.childProcess`: every repeat of every strategy runs in a
    /// fresh child (`IsolatedStrategyRun`) and the lowest peak per strategy is
    /// kept, with that run's CPU and wall time (close calls between naive and
    /// renderer get `closeCallRepeats` more runs each); this process then decodes the
    /// image once per strategy, unmeasured, for SSIM and PSNR. The image is
    /// handed over in a temporary file, removed afterwards.
    func measureInChildProcesses(data: Data, productId: Int?, url: String, executable: String) async -> ImageMetricsRecord {
        // The header is read here (no pixels), so an image the limits refuse
        // never reaches a child.
        let (started, opened) = startRecord(data: data, productId: productId, url: url,
                                           peakMethod: configuration.preferredPeakMethod == .vipsTracked ? .vipsTracked : .freshProcess)
        var record = started
        guard let source = opened, let file = handOver(data, failureIn: &record) else { return record }
        defer { try? FileManager.default.removeItem(atPath: file) }

        for kind in StrategyKind.allCases {
            _ = await measureInChildren(kind, times: configuration.repeats(of: kind, pixels: source.header.pixelCount),
                                        file: file,
                                        executable: executable, into: &record)
        }
        var rounds = 0
        while needsCloseCallRound(record, roundsDone: rounds),
              await measureInChildren(.naive, times: configuration.closeCallRepeats, file: file, executable: executable,
                                      into: &record),
              await measureInChildren(.renderer, times: configuration.closeCallRepeats, file: file,
                                      executable: executable, into: &record) {
            rounds += 1
        }
        if configuration.quality { addQualityDecodingAgain(to: &record, source: source) }
        return record
    }

    /// Runs `kind` in `times` fresh children, keeping the lowest peak so far
    /// in `record`; false (with the error recorded) when one fails.
    private func measureInChildren(_ kind: StrategyKind, times: Int, file: String, executable: String,
                                   into record: inout ImageMetricsRecord) async -> Bool {
        let run = IsolatedStrategyRun(kind: kind, imagePath: file, target: configuration.target,
                                      limits: configuration.limits, preferredPeakMethod: record.peakMethod ?? .freshProcess)
        for _ in 0..<times {
            switch await run.run(executable: executable) {
            case .success(let report):
                guard let metrics = report.metrics else {
                    record.failStrategy(kind, "the \(kind.rawValue) decode failed: \(report.error ?? "no reason given")",
                                        reason: report.errorReason)
                    return false
                }
                if report.peakMethod == .vipsTracked { record.peakMethod = .vipsTracked }
                if let best = record.strategies[kind], !metrics.hasLowerPeak(than: best) { continue }
                record.strategies[kind] = metrics
            case .failure(let failure):
                record.failStrategy(kind, "measuring the \(kind.rawValue) decode failed: \(failure)",
                                    reason: "measurement-failed")
                return false
            }
        }
        return true
    }

    /// SSIM and PSNR from one more, unmeasured decode per measured strategy in this process.
    private func addQualityDecodingAgain(to record: inout ImageMetricsRecord, source: ImageSource) {
        var outputs: [StrategyKind: DecodedImage] = [:]
        for kind in StrategyKind.allCases where record.strategies[kind] != nil {
            outputs[kind] = try? kind.strategy.decode(source, target: configuration.target)
        }
        addQuality(to: &record, outputs: outputs, source: source)
    }
}

extension ImageMetricsRecord {
    /// A strategy failed: it has no metrics, and the record keeps the first failure's message.
    mutating func failStrategy(_ kind: StrategyKind, _ message: String, reason: String?) {
        if error == nil {
            error = message
            errorReason = reason
        }
        strategies[kind] = nil
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
