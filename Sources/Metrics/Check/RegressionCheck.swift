import Downsample

/// Lists every way thumbnail-at-decode got worse than the baseline, image by image (by URL); peaks
/// are compared only where both sides measured one, beyond a noise allowance.
public struct RegressionCheck: Sendable {
    /// Relative growth allowed for retained and peak bytes (0.10: +10%).
    public var tolerance: Double
    /// SSIM below this is a regression, whatever the baseline held.
    public var minimumSSIM: Double
    /// Absolute growth the peak may have on top of `tolerance`: run-to-run
    /// noise, which a relative tolerance of a small peak cannot absorb.
    public var peakAllowanceBytes: Int

    /// The peak allowance is about three times the most a thumbnail peak moved between two runs (bench/findings.md
    /// section 14); a thumbnail path holding a full bitmap adds megabytes (`ShippedThumbnailTests`).
    public init(tolerance: Double = 0.10, minimumSSIM: Double = 0.90, peakAllowanceBytes: Int = 1024 * 1024) {
        self.tolerance = tolerance
        self.minimumSSIM = minimumSSIM
        self.peakAllowanceBytes = peakAllowanceBytes
    }

    public struct Regression: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: Sendable {
            case targetChanged, nowFails, outputSizeChanged, retainedGrew, peakGrew, ssimBelowMinimum
        }
        public var kind: Kind
        public var url: String?
        public var detail: String

        public var description: String { (url.map { "\($0): " } ?? "") + detail }
    }

    public struct Outcome: Sendable {
        public var regressions: [Regression]
        public var comparedImages: Int
        /// Baseline URLs the metrics do not contain (not compared; not a regression).
        public var missingURLs: [String]
        public var newImages: Int
        public var fixedImages: Int
        /// Compared images whose peak was not (the run did not measure the
        /// image, or the baseline did not), so only sizes were compared.
        public var peaksNotCompared: Int
        public var notes: [String]
        public var passed: Bool { regressions.isEmpty }
    }

    public func run(records: [ImageMetricsRecord], against baseline: MetricsBaseline) -> Outcome {
        let current = MetricsBaseline.lastByURL(records)
        var regressions: [Regression] = []
        var notes: [String] = []

        let targets = Set(current.values.map(\.targetLongestSide)).sorted()
        if targets != [baseline.targetLongestSide] && !targets.isEmpty {
            regressions.append(Regression(
                kind: .targetChanged, url: nil,
                detail: "the thumbnail target changed from \(baseline.targetLongestSide) px (baseline) to \(targets.map { "\($0) px" }.joined(separator: ", ")); every image's size and bytes are compared as they are"))
        }
        let methods = Set(current.values.compactMap(\.peakMethod))
        let comparePeaks = methods == [baseline.peakMethod]
        if !comparePeaks && !methods.isEmpty {
            notes.append("peaks were not compared: the baseline measured them with \(baseline.peakMethod.rawValue), the metrics with \(methods.map(\.rawValue).sorted().joined(separator: ", "))")
        }

        var compared = 0, fixed = 0, peaksNotCompared = 0
        var missing: [String] = []
        for base in baseline.images {
            guard let record = current[base.url] else {
                missing.append(base.url)
                continue
            }
            compared += 1
            let thumbnail = record.error == nil ? record.strategies.thumbnail : nil
            guard base.decoded else {
                if thumbnail != nil { fixed += 1 }
                continue
            }
            guard let now = thumbnail else {
                regressions.append(Regression(kind: .nowFails, url: base.url,
                                              detail: "decoded in the baseline, now fails: \(record.error ?? "no thumbnail was measured")"))
                continue
            }
            if now.peakBytes == nil || base.peakBytes == nil { peaksNotCompared += 1 }
            regressions += compare(base, now, url: base.url, comparePeaks: comparePeaks)
        }
        if (comparePeaks || methods.isEmpty) && peaksNotCompared > 0 {
            notes.append("peaks of \(peaksNotCompared) of \(compared) images were not compared: they were not measured (outside the run's measured sample, or the baseline's)")
        }
        let baselineURLs = Set(baseline.images.map(\.url))
        return Outcome(regressions: regressions, comparedImages: compared, missingURLs: missing,
                       newImages: current.keys.filter { !baselineURLs.contains($0) }.count, fixedImages: fixed,
                       peaksNotCompared: peaksNotCompared, notes: notes)
    }

    private func compare(_ base: MetricsBaseline.Image, _ now: ImageMetricsRecord.StrategyMetrics, url: String,
                         comparePeaks: Bool) -> [Regression] {
        var found: [Regression] = []
        let tolerancePercent = ReportFormat.number(tolerance * 100, decimals: 0) + "%"
        if let width = base.outputWidth, let height = base.outputHeight,
           width != now.outputWidth || height != now.outputHeight {
            found.append(Regression(kind: .outputSizeChanged, url: url,
                                    detail: "thumbnail output size changed from \(width)x\(height) to \(now.outputWidth)x\(now.outputHeight)"))
        }
        if let was = base.retainedBytes, Double(now.retainedBytes) > Double(was) * (1 + tolerance) {
            found.append(Regression(kind: .retainedGrew, url: url,
                                    detail: "thumbnail retained bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(now.retainedBytes)) (\(growth(was, now.retainedBytes)), tolerance \(tolerancePercent))"))
        }
        if comparePeaks, let was = base.peakBytes, let peak = now.peakBytes {
            let allowed = Int((Double(was) * (1 + tolerance)).rounded(.down)) + peakAllowanceBytes
            if peak > allowed {
                found.append(Regression(kind: .peakGrew, url: url,
                                        detail: "thumbnail peak bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(peak)) (\(growth(was, peak)); allowed up to \(ReportFormat.count(allowed)): +\(tolerancePercent) and \(ReportFormat.count(peakAllowanceBytes)) bytes of measurement noise)"))
            }
        }
        if let ssim = now.ssim, ssim < minimumSSIM {
            found.append(Regression(kind: .ssimBelowMinimum, url: url,
                                    detail: "thumbnail SSIM \(ReportFormat.number(ssim, decimals: 4)) is below the minimum \(ReportFormat.number(minimumSSIM, decimals: 4))" + (base.ssim.map { " (baseline \(ReportFormat.number($0, decimals: 4)))" } ?? "")))
        }
        return found
    }

    private func growth(_ was: Int, _ now: Int) -> String {
        guard was > 0 else { return "from zero" }
        return "+" + ReportFormat.number(Double(now - was) / Double(was) * 100, decimals: 1) + "%"
    }
}
