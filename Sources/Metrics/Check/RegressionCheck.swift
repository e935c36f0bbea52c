import Downsample

/// Compares a run's thumbnail-at-decode figures with a baseline: image by image (matched by `ImageMatching`), and over
/// the catalog (median and p90 of the per-image ratio now / baseline). Only figures that count the work fail it: the
/// pixels the thumbnail path decoded from the same source bytes, the output size and retained bytes, SSIM, an image
/// that now fails. Peaks and CPU time depend on the machine, its load and the build; they are reported as advisory
/// warnings that never change the outcome (docs/measuring.md gives their measured noise). It refuses to pass on
/// metrics that cannot stand for the baseline: too few images compared, decoded pixels not counted on either side,
/// other decoders, another target size, format or quality (`CheckOutcome.Shortfall`).
public struct RegressionCheck: Sendable {
    /// Relative growth allowed for one image's retained bytes (0.10: +10%), and for its peak before a warning.
    public var tolerance: Double
    /// SSIM below this is a regression, whatever the baseline held.
    public var minimumSSIM: Double
    /// SSIM lower than the baseline's by more than this is a regression (SSIM is the same from run to run).
    public var maximumSSIMDrop: Double
    /// Advisory: absolute growth one image's peak may have on top of `tolerance` before a warning.
    public var peakAllowanceBytes: Int
    /// Advisory limits of the catalog-level peak ratios (median, p90).
    var peakRatioLimits: RatioLimits
    /// Limits of the catalog-level retained-bytes ratios: retained bytes follow the output size and have no noise.
    var retainedRatioLimits: RatioLimits
    /// Advisory limit of the p90 of the per-image thumbnail CPU ratio over its median (compared between runs of one
    /// build only).
    public var cpuSpreadLimit: Double
    /// Fewest images a catalog-level figure is judged over: below it, one image's noise is the median (the limits
    /// were measured over the sample's 23).
    var catalogMinimumImages: Int
    /// Baseline images that must be compared; nil: all of them.
    var minimumCompared: Int?
    /// Compare sizes, decoding and SSIM only: no peak or CPU time is reported.
    var sizesOnly: Bool

    public struct RatioLimits: Sendable, Equatable {
        public var median: Double
        public var p90: Double

        public init(median: Double, p90: Double) {
            self.median = median
            self.p90 = p90
        }

        /// bench/findings.md section 17: over 60 ordered pairs of two series of six runs of the sample on one build (a
        /// loaded machine) the peak ratio's median was 0.726-1.378 and its p90 0.988-1.909; the limits are 1 plus
        /// about 1.6 times the largest excursion. Advisory since issue 44 (docs/measuring.md).
        public static let peak = RatioLimits(median: 1.60, p90: 2.50)
        public static let retained = RatioLimits(median: 1.01, p90: 1.01)
    }

    /// The peak allowance is about three times the most a thumbnail peak moved between two runs (bench/findings.md
    /// section 14).
    public init(tolerance: Double = 0.10, minimumSSIM: Double = 0.90, maximumSSIMDrop: Double = 0.01,
                peakAllowanceBytes: Int = 1024 * 1024, peakRatioLimits: RatioLimits = .peak,
                retainedRatioLimits: RatioLimits = .retained, cpuSpreadLimit: Double = 1.25, catalogMinimumImages: Int = 10,
                minimumCompared: Int? = nil, sizesOnly: Bool = false) {
        self.tolerance = tolerance
        self.minimumSSIM = minimumSSIM
        self.maximumSSIMDrop = maximumSSIMDrop
        self.peakAllowanceBytes = peakAllowanceBytes
        self.peakRatioLimits = peakRatioLimits
        self.retainedRatioLimits = retainedRatioLimits
        self.cpuSpreadLimit = cpuSpreadLimit
        self.catalogMinimumImages = catalogMinimumImages
        self.minimumCompared = minimumCompared
        self.sizesOnly = sizesOnly
    }

    /// Of `records`, the list thumbnails' (carousel records are reported, not checked).
    public func run(records: [ImageMetricsRecord], against baseline: MetricsBaseline) -> CheckOutcome {
        let records = records.filter(\.isThumbnail)
        let matching = ImageMatching(baseline: baseline.images, records: records)
        let comparePeaks = !sizesOnly && Set(records.compactMap(\.peakMethod)) == [baseline.peakMethod]
        let builds = Set(records.compactMap(\.build))
        let sameBuild = baseline.build != nil && builds == [baseline.build!]
        var results: [CheckOutcome.ImageResult] = []
        var pairs: [(base: MetricsBaseline.Image, now: ImageMetricsRecord.StrategyMetrics)] = []
        var fixed = 0, uncounted = 0
        for (base, match) in zip(baseline.images, matching.matches) {
            guard case .record(let record) = match else {
                results.append(.init(url: base.url, state: match.isChanged ? .changed : .missing, regressions: []))
                continue
            }
            let thumbnail = record.error == nil ? record.strategies.thumbnail : nil
            var result = CheckOutcome.ImageResult(url: base.url, state: .compared, regressions: [])
            if !base.decoded {
                if thumbnail != nil { fixed += 1 }
            } else if let now = thumbnail {
                let sameBytes = base.sourceSHA256 != nil && base.sourceSHA256 == record.sourceSHA256
                if let was = base.decodedPixels, let pixels = now.decodedPixels, sameBytes {
                    if pixels > was { result.regressions.append(decodedMore(base, was: was, now: pixels)) }
                } else {
                    uncounted += 1
                }
                result.regressions += compare(base, now)
                if comparePeaks { result.warnings = peakWarnings(base, now) }
                pairs.append((base, now))
            } else {
                result.regressions = [.init(kind: .nowFails, url: base.url,
                                            detail: "decoded in the baseline, now fails: \(record.error ?? "no thumbnail was measured")")]
            }
            results.append(result)
        }
        var outcome = CheckOutcome(images: results,
                                   catalogFigures: catalogFigures(pairs, comparePeaks: comparePeaks, compareCPU: comparePeaks && sameBuild),
                                   shortfalls: [], comparedImages: results.filter { $0.state == .compared }.count,
                                   newImages: matching.newImages, fixedImages: fixed, notes: [])
        outcome.shortfalls = shortfalls(outcome, records: records, baseline: baseline, uncounted: uncounted)
        if sizesOnly { outcome.notes.append("peaks and CPU time were not reported (--sizes-only)") }
        if comparePeaks && !sameBuild {
            let now = builds.isEmpty ? "an unrecorded build" : builds.sorted().map { "a \($0) build" }.joined(separator: " and ")
            let was = baseline.build.map { "a \($0) build" } ?? "an unrecorded build"
            outcome.notes.append("the baseline comes from \(was), the metrics from \(now): CPU time was not compared (decoded pixels are the same from either build)")
        }
        if baseline.outputFormat == nil {
            outcome.notes.append("the baseline (version \(baseline.version)) does not record the output format and quality: they were not compared")
        }
        return outcome
    }

    private func decodedMore(_ base: MetricsBaseline.Image, was: Int, now: Int) -> CheckOutcome.Regression {
        let times = ReportFormat.number(Double(now) / Double(max(was, 1)), decimals: 2)
        return .init(kind: .decodedMorePixels, url: base.url,
                     detail: "the thumbnail path decoded \(ReportFormat.count(now)) pixels from the same source bytes, the baseline \(ReportFormat.count(was)) (\(times)x): a shrink-on-load step lost, or a fall-back to a larger decode")
    }

    private func compare(_ base: MetricsBaseline.Image, _ now: ImageMetricsRecord.StrategyMetrics) -> [CheckOutcome.Regression] {
        var found: [CheckOutcome.Regression] = []
        func add(_ kind: CheckOutcome.Regression.Kind, _ detail: String) { found.append(.init(kind: kind, url: base.url, detail: detail)) }
        let tolerancePercent = ReportFormat.number(tolerance * 100, decimals: 0) + "%"
        if let width = base.outputWidth, let height = base.outputHeight, width != now.outputWidth || height != now.outputHeight {
            add(.outputSizeChanged, "thumbnail output size changed from \(width)x\(height) to \(now.outputWidth)x\(now.outputHeight)")
        }
        if let was = base.retainedBytes, Double(now.retainedBytes) > Double(was) * (1 + tolerance) {
            add(.retainedGrew, "thumbnail retained bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(now.retainedBytes)) (\(growth(was, now.retainedBytes)), tolerance \(tolerancePercent))")
        }
        let baselineNote = base.ssim.map { " (baseline \(ReportFormat.number($0, decimals: 4)))" } ?? ""
        if let ssim = now.ssim, ssim < minimumSSIM {
            add(.ssimBelowMinimum, "thumbnail SSIM \(ReportFormat.number(ssim, decimals: 4)) is below the minimum \(ReportFormat.number(minimumSSIM, decimals: 4))" + baselineNote)
        } else if let ssim = now.ssim, let was = base.ssim, was - ssim > maximumSSIMDrop {
            add(.ssimDropped, "thumbnail SSIM fell from \(ReportFormat.number(was, decimals: 4)) to \(ReportFormat.number(ssim, decimals: 4)), more than the \(ReportFormat.number(maximumSSIMDrop, decimals: 4)) allowed")
        }
        return found
    }

    /// Advisory: the peak above baseline x (1 + tolerance) + the allowance.
    private func peakWarnings(_ base: MetricsBaseline.Image, _ now: ImageMetricsRecord.StrategyMetrics) -> [CheckOutcome.Regression] {
        guard let was = base.peakBytes, let peak = now.peakBytes else { return [] }
        let allowed = Int((Double(was) * (1 + tolerance)).rounded(.down)) + peakAllowanceBytes
        guard peak > allowed else { return [] }
        let tolerancePercent = ReportFormat.number(tolerance * 100, decimals: 0) + "%"
        return [.init(kind: .peakGrew, url: base.url,
                      detail: "thumbnail peak bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(peak)) (\(growth(was, peak)); allowed up to \(ReportFormat.count(allowed)): +\(tolerancePercent) and \(ReportFormat.count(peakAllowanceBytes)) bytes of measurement noise)")]
    }

    private func growth(_ was: Int, _ now: Int) -> String {
        guard was > 0 else { return "from zero" }
        return "+" + ReportFormat.number(Double(now - was) / Double(was) * 100, decimals: 1) + "%"
    }
}

extension ImageMatching.Match {
    var isChanged: Bool {
        if case .changed = self { return true }
        return false
    }
}
