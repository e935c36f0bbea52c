import Downsample

/// Compares a run's thumbnail-at-decode figures with a baseline: image by image (matched by `ImageMatching`), and over
/// the catalog (median and p90 of the per-image ratio now / baseline, steadier than any one image's peak). It refuses
/// to pass on metrics that cannot stand for the baseline: too few images compared, peaks the baseline measured and the
/// metrics did not, another target size, format or quality (`CheckOutcome.Shortfall`).
public struct RegressionCheck: Sendable {
    /// Relative growth allowed for one image's retained and peak bytes (0.10: +10%).
    public var tolerance: Double
    /// SSIM below this is a regression, whatever the baseline held.
    public var minimumSSIM: Double
    /// SSIM lower than the baseline's by more than this is a regression (SSIM is the same from run to run).
    public var maximumSSIMDrop: Double
    /// Absolute growth one image's peak may have on top of `tolerance`: run-to-run
    /// noise, which a relative tolerance of a small peak cannot absorb.
    public var peakAllowanceBytes: Int
    /// Limits of the catalog-level peak ratios (median, p90), from two runs of the sample on one build.
    public var peakRatioLimits: RatioLimits
    /// Limits of the catalog-level retained-bytes ratios: retained bytes follow the output size and have no noise.
    public var retainedRatioLimits: RatioLimits
    /// Limit of the p90 of the per-image thumbnail CPU ratio over its median: a machine faster or slower than the
    /// baseline's moves every image alike and cancels out; a lost shrink-on-load step triples some images' CPU.
    public var cpuSpreadLimit: Double
    /// Fewest images a catalog-level figure is judged over: below it, one image's noise is the median (the limits
    /// were measured over the sample's 23).
    public var catalogMinimumImages: Int
    /// Baseline images that must be compared; nil: all of them.
    public var minimumCompared: Int?
    /// Compare sizes, decoding and SSIM only: no peak (nor CPU time) is compared or required.
    public var sizesOnly: Bool

    public struct RatioLimits: Sendable, Equatable {
        public var median: Double
        public var p90: Double

        public init(median: Double, p90: Double) {
            self.median = median
            self.p90 = p90
        }

        /// bench/findings.md section 17: over 60 ordered pairs of two series of six runs of the sample on one build (a
        /// loaded machine) the peak ratio's median was 0.726-1.378 and its p90 0.988-1.909; the limits are 1 plus
        /// about 1.6 times the largest excursion.
        public static let peak = RatioLimits(median: 1.60, p90: 2.50)
        public static let retained = RatioLimits(median: 1.01, p90: 1.01)
    }

    /// The peak allowance is about three times the most a thumbnail peak moved between two runs (bench/findings.md
    /// section 14); a thumbnail path holding a full bitmap adds megabytes (`ShippedThumbnailTests`).
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

    public func run(records: [ImageMetricsRecord], against baseline: MetricsBaseline) -> CheckOutcome {
        let matching = ImageMatching(baseline: baseline.images, records: records)
        let comparePeaks = !sizesOnly && Set(records.compactMap(\.peakMethod)) == [baseline.peakMethod]
        var results: [CheckOutcome.ImageResult] = []
        var pairs: [(base: MetricsBaseline.Image, now: ImageMetricsRecord.StrategyMetrics)] = []
        var fixed = 0, peaksMissing = 0
        for (base, match) in zip(baseline.images, matching.matches) {
            guard case .record(let record) = match else {
                results.append(.init(url: base.url, state: match.isChanged ? .changed : .missing, regressions: []))
                continue
            }
            let thumbnail = record.error == nil ? record.strategies.thumbnail : nil
            var found: [CheckOutcome.Regression] = []
            if !base.decoded {
                if thumbnail != nil { fixed += 1 }
            } else if let now = thumbnail {
                if !sizesOnly && base.peakBytes != nil && (now.peakBytes == nil || !comparePeaks) { peaksMissing += 1 }
                found = compare(base, now, comparePeaks: comparePeaks)
                pairs.append((base, now))
            } else {
                found = [.init(kind: .nowFails, url: base.url,
                               detail: "decoded in the baseline, now fails: \(record.error ?? "no thumbnail was measured")")]
            }
            results.append(.init(url: base.url, state: .compared, regressions: found))
        }
        var outcome = CheckOutcome(images: results, catalogFigures: catalogFigures(pairs, comparePeaks: comparePeaks),
                                   shortfalls: [], comparedImages: results.filter { $0.state == .compared }.count,
                                   newImages: matching.newImages, fixedImages: fixed, notes: [])
        outcome.shortfalls = shortfalls(outcome, records: records, baseline: baseline, peaksMissing: peaksMissing)
        if sizesOnly { outcome.notes.append("peaks were not compared (--sizes-only)") }
        if baseline.outputFormat == nil {
            outcome.notes.append("the baseline (version \(baseline.version)) does not record the output format and quality: they were not compared")
        }
        return outcome
    }

    private func compare(_ base: MetricsBaseline.Image, _ now: ImageMetricsRecord.StrategyMetrics,
                         comparePeaks: Bool) -> [CheckOutcome.Regression] {
        var found: [CheckOutcome.Regression] = []
        func add(_ kind: CheckOutcome.Regression.Kind, _ detail: String) { found.append(.init(kind: kind, url: base.url, detail: detail)) }
        let tolerancePercent = ReportFormat.number(tolerance * 100, decimals: 0) + "%"
        if let width = base.outputWidth, let height = base.outputHeight, width != now.outputWidth || height != now.outputHeight {
            add(.outputSizeChanged, "thumbnail output size changed from \(width)x\(height) to \(now.outputWidth)x\(now.outputHeight)")
        }
        if let was = base.retainedBytes, Double(now.retainedBytes) > Double(was) * (1 + tolerance) {
            add(.retainedGrew, "thumbnail retained bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(now.retainedBytes)) (\(growth(was, now.retainedBytes)), tolerance \(tolerancePercent))")
        }
        if comparePeaks, let was = base.peakBytes, let peak = now.peakBytes {
            let allowed = Int((Double(was) * (1 + tolerance)).rounded(.down)) + peakAllowanceBytes
            if peak > allowed {
                add(.peakGrew, "thumbnail peak bytes grew from \(ReportFormat.count(was)) to \(ReportFormat.count(peak)) (\(growth(was, peak)); allowed up to \(ReportFormat.count(allowed)): +\(tolerancePercent) and \(ReportFormat.count(peakAllowanceBytes)) bytes of measurement noise)")
            }
        }
        let baselineNote = base.ssim.map { " (baseline \(ReportFormat.number($0, decimals: 4)))" } ?? ""
        if let ssim = now.ssim, ssim < minimumSSIM {
            add(.ssimBelowMinimum, "thumbnail SSIM \(ReportFormat.number(ssim, decimals: 4)) is below the minimum \(ReportFormat.number(minimumSSIM, decimals: 4))" + baselineNote)
        } else if let ssim = now.ssim, let was = base.ssim, was - ssim > maximumSSIMDrop {
            add(.ssimDropped, "thumbnail SSIM fell from \(ReportFormat.number(was, decimals: 4)) to \(ReportFormat.number(ssim, decimals: 4)), more than the \(ReportFormat.number(maximumSSIMDrop, decimals: 4)) allowed")
        }
        return found
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
