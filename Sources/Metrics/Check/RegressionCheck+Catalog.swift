import Downsample

extension RegressionCheck {
    /// Median and p90 (nearest rank) of the per-image ratio now / baseline: retained bytes (judged), and the thumbnail
    /// peak where both sides measured one and the CPU spread between runs of one build (advisory), over the compared
    /// images that decoded on both sides.
    func catalogFigures(_ pairs: [(base: MetricsBaseline.Image, now: ImageMetricsRecord.StrategyMetrics)],
                        comparePeaks: Bool, compareCPU: Bool) -> [CheckOutcome.CatalogFigure] {
        func figures(_ what: String, _ ratios: [Double], _ limits: RatioLimits, advisory: Bool = false) -> [CheckOutcome.CatalogFigure] {
            let sorted = ratios.sorted()
            return [("median", 50.0, limits.median), ("p90", 90.0, limits.p90)].map { name, percent, limit in
                CheckOutcome.CatalogFigure(name: "\(name) of the per-image ratio \(what) now/baseline",
                                           ratio: Percentile.of(sorted, percent), limit: limit, images: sorted.count,
                                           judged: sorted.count >= catalogMinimumImages, advisory: advisory)
            }
        }
        let retained = pairs.compactMap { pair in
            pair.base.retainedBytes.flatMap { $0 > 0 ? Double(pair.now.retainedBytes) / Double($0) : nil }
        }
        var all = figures("thumbnail retained bytes", retained, retainedRatioLimits)
        if comparePeaks {
            let peaks = pairs.compactMap { pair -> Double? in
                guard let was = pair.base.peakBytes, was > 0, let now = pair.now.peakBytes else { return nil }
                return Double(now) / Double(was)
            }
            all = figures("thumbnail peak", peaks, peakRatioLimits, advisory: true) + all
            if compareCPU { all.append(cpuSpread(pairs)) }
        }
        return all
    }

    /// The p90 of the per-image thumbnail CPU ratio now/baseline over its median, advisory (docs/measuring.md: its
    /// noise on a loaded machine reached the 3x a lost shrink-on-load step makes; the decoded pixels catch that step).
    private func cpuSpread(_ pairs: [(base: MetricsBaseline.Image, now: ImageMetricsRecord.StrategyMetrics)]) -> CheckOutcome.CatalogFigure {
        let ratios = pairs.compactMap { pair -> Double? in
            guard let was = pair.base.cpuSeconds, was > 0, let now = pair.now.cpuSeconds else { return nil }
            return now / was
        }.sorted()
        let spread = Percentile.of(ratios, 90).flatMap { p90 in Percentile.of(ratios, 50).map { p90 / $0 } }
        return CheckOutcome.CatalogFigure(name: "p90 over median of the per-image ratio thumbnail CPU time now/baseline",
                                          ratio: spread, limit: cpuSpreadLimit, images: ratios.count,
                                          judged: ratios.count >= catalogMinimumImages, advisory: true)
    }

    /// Why `outcome` cannot stand for the baseline, each as a sentence that says what to do.
    func shortfalls(_ outcome: CheckOutcome, records: [ImageMetricsRecord], baseline: MetricsBaseline,
                    uncounted: Int) -> [CheckOutcome.Shortfall] {
        var found: [CheckOutcome.Shortfall] = []
        let required = minimumCompared ?? baseline.images.count
        if outcome.comparedImages < required {
            let (missing, changed) = (outcome.count(.missing), outcome.count(.changed))
            found.append(.init(kind: .tooFewCompared, detail: "compared \(outcome.comparedImages) of the baseline's \(baseline.images.count) images, fewer than the \(required) required (--min-compared): \(missing) are not in the metrics and \(changed) changed (other source bytes at the same URL path); images are matched by the SHA-256 of their source bytes, else by URL path and query, so measure the catalog the baseline was made from"))
        }
        if uncounted > 0 {
            let why = baseline.version < 3
                ? "the baseline is version \(baseline.version), which counts no decoded pixels: write a new one with this warm (--update-baseline)"
                : "the baseline or the metrics hold no pixel count for them, or no SHA-256 of their source bytes (metrics written by an older warm, or from cache entries): measure the catalog again with this warm"
            found.append(.init(kind: .pixelsNotCounted, detail: "the decoded pixels of \(uncounted) compared images could not be compared: \(why)"))
        }
        let decoders = Set(records.compactMap(\.decoders)).sorted()
        if let was = baseline.decoders, !decoders.isEmpty, decoders != [was] {
            found.append(.init(kind: .decodersDiffer, detail: "the metrics were measured with \(decoders.joined(separator: "; ")), the baseline with \(was): decoded pixels, sizes and SSIM are the decoders' own, so they are compared only between runs with the same decoders; measure on a machine with the baseline's, or write a new baseline (--update-baseline)"))
        }
        found += settingsDiffer(records: records, baseline: baseline)
        return found
    }

    private func settingsDiffer(records: [ImageMetricsRecord], baseline: MetricsBaseline) -> [CheckOutcome.Shortfall] {
        var differ: [String] = []
        let targets = Set(records.map(\.targetLongestSide)).sorted()
        if !targets.isEmpty && targets != [baseline.targetLongestSide] {
            differ.append("the target size is \(targets.map { "\($0) px" }.joined(separator: ", ")), the baseline's \(baseline.targetLongestSide) px")
        }
        let formats = Set(records.compactMap(\.outputFormat)).map(\.rawValue).sorted()
        if let format = baseline.outputFormat, !formats.isEmpty, formats != [format.rawValue] {
            differ.append("the output format is \(formats.joined(separator: ", ")), the baseline's \(format.rawValue)")
        }
        let qualities = Set(records.compactMap(\.outputQuality)).sorted()
        if let quality = baseline.outputQuality, !qualities.isEmpty, qualities != [quality] {
            differ.append("the quality is \(qualities.map(String.init).joined(separator: ", ")), the baseline's \(quality)")
        }
        guard !differ.isEmpty else { return [] }
        return [.init(kind: .settingsDiffer, detail: differ.joined(separator: "; ") + ": measure with the baseline's settings, or write a new baseline (--update-baseline)")]
    }
}
