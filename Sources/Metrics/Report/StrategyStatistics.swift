import Downsample

/// One strategy's figures over a set of images: retained bytes over all, peaks, times and quality over
/// the measured ones (an unmeasured record has retained bytes only).
struct StrategyStatistics: Sendable, Equatable {
    var kind: StrategyKind
    var totalRetainedBytes: Int
    var averageRetainedBytes: Double?
    var peakBytesP50: Int?
    var peakBytesP95: Int?
    var peakBytesMax: Int?
    var cpuMillisecondsP50: Double?
    var cpuMillisecondsP95: Double?
    /// Images decoded per second, one at a time: count / total wall seconds.
    var imagesPerSecond: Double?
    /// SSIM against the reference (nil for naive, which is the reference's source).
    var ssimP5: Double?
    var ssimMedian: Double?
    var psnrMedian: Double?

    init(kind: StrategyKind, metrics: [ImageMetricsRecord.StrategyMetrics]) {
        self.kind = kind
        totalRetainedBytes = metrics.reduce(0) { $0 + $1.retainedBytes }
        averageRetainedBytes = metrics.isEmpty ? nil : Double(totalRetainedBytes) / Double(metrics.count)
        let measured = metrics.filter { $0.peakBytes != nil }
        let peaks = measured.compactMap(\.peakBytes).sorted()
        peakBytesP50 = Percentile.of(peaks, 50)
        peakBytesP95 = Percentile.of(peaks, 95)
        peakBytesMax = peaks.last
        let cpu = measured.compactMap { $0.cpuSeconds.map { $0 * 1000 } }.sorted()
        cpuMillisecondsP50 = Percentile.of(cpu, 50)
        cpuMillisecondsP95 = Percentile.of(cpu, 95)
        let timed = measured.compactMap(\.wallSeconds)
        let wallSeconds = timed.reduce(0, +)
        imagesPerSecond = wallSeconds > 0 ? Double(timed.count) / wallSeconds : nil
        let ssim = metrics.compactMap(\.ssim).sorted()
        ssimP5 = Percentile.of(ssim, 5)
        ssimMedian = Percentile.of(ssim, 50)
        psnrMedian = Percentile.of(metrics.compactMap(\.psnr).sorted(), 50)
    }
}
