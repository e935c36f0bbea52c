import Downsample

/// The report's figures, from records in catalog order. Strategy tables cover only images all three
/// strategies decoded, so every column sums over the same images; peaks and times only measured ones.
struct MemoryComparison: Sendable {
    struct Column: Sendable {
        var statistics: StrategyStatistics
        /// How many images, taken in catalog order, fit in the cache limit before
        /// the running total of retained bytes would exceed it.
        var imagesFittingInCache: Int
        /// naive total / this total (2.0: half the memory); nil for naive.
        var timesSmallerThanNaive: Double?
        /// (naive total - this total) / naive total, in percent; nil for naive.
        var reductionFromNaivePercent: Double?
        var cacheSimulation: CacheSimulation.Outcome
        var kind: StrategyKind { statistics.kind }
    }

    struct FormatRow: Sendable {
        var format: String
        var comparedImages: Int
        /// Of `comparedImages`, those whose peaks were measured.
        var measuredImages: Int
        var failedImages: Int
        var strategies: [StrategyStatistics]
    }

    var cacheLimitBytes: Int
    var imageCount: Int
    /// Records where all three strategies decoded (the tables' N).
    var comparedCount: Int
    /// Of those, the records whose peaks were measured (the peak tables' N).
    var measuredCount: Int
    var failuresByReason: [(reason: String, count: Int)]
    var failureExamples: [(url: String, error: String)]
    var targetLongestSides: [Int]
    var peakMethods: [PeakMethod]
    var columns: [Column]
    var formats: [FormatRow]
    /// The variants the run wrote, by format and size; nil unless they come in two formats or more.
    var variants: VariantStatistics?

    init(records: [ImageMetricsRecord], cacheLimitBytes: Int) {
        self.cacheLimitBytes = cacheLimitBytes
        imageCount = records.count
        let compared = records.filter(\.isComplete)
        comparedCount = compared.count
        measuredCount = compared.filter(\.measured).count
        let failed = records.filter { !$0.isComplete }
        failuresByReason = Dictionary(grouping: failed) { $0.errorReason ?? "unknown" }
            .map { (reason: $0.key, count: $0.value.count) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.reason < $1.reason }
        failureExamples = failed.prefix(5).map { (url: $0.url, error: $0.error ?? "unknown error") }
        targetLongestSides = Set(records.map(\.targetLongestSide)).sorted()
        peakMethods = Set(records.compactMap(\.peakMethod)).sorted { $0.rawValue < $1.rawValue }

        let naiveTotal = compared.reduce(0) { $0 + ($1.strategies.naive?.retainedBytes ?? 0) }
        columns = StrategyKind.allCases.map { kind in
            let metrics = compared.compactMap { $0.strategies[kind] }
            let statistics = StrategyStatistics(kind: kind, metrics: metrics)
            let costs = metrics.map(\.retainedBytes)
            let total = statistics.totalRetainedBytes
            let isNaive = kind == .naive
            return Column(
                statistics: statistics,
                imagesFittingInCache: CacheSimulation.longestRun(costs, costLimit: cacheLimitBytes).images,
                timesSmallerThanNaive: isNaive || total == 0 ? nil : Double(naiveTotal) / Double(total),
                reductionFromNaivePercent: isNaive || naiveTotal == 0 ? nil : Double(naiveTotal - total) / Double(naiveTotal) * 100,
                cacheSimulation: CacheSimulation.run(costs: costs, costLimit: cacheLimitBytes))
        }

        let byFormat = Dictionary(grouping: records) { $0.format?.rawValue ?? "unknown" }
        formats = byFormat.keys.sorted().map { format in
            let group = byFormat[format]!
            let complete = group.filter(\.isComplete)
            return FormatRow(format: format, comparedImages: complete.count, measuredImages: complete.filter(\.measured).count,
                             failedImages: group.count - complete.count,
                             strategies: StrategyKind.allCases.map { kind in
                                 StrategyStatistics(kind: kind, metrics: complete.compactMap { $0.strategies[kind] })
                             })
        }
        variants = VariantStatistics(records: records, cacheLimitBytes: cacheLimitBytes)
    }

    /// True when some compared images have retained bytes only (a sampled run).
    var isSampled: Bool { measuredCount < comparedCount }

    func column(_ kind: StrategyKind) -> Column {
        columns.first { $0.kind == kind }!
    }
}
