import Downsample
import Foundation
import WarmSupport

/// The memory comparison report (`warm report`), as Markdown and as self-contained HTML with SVG charts.
struct MemoryReport: Sendable {
    /// Where the figures came from, stated in the report.
    struct Context: Sendable {
        var metricsPaths: [String]
        var generatedAt = Date()
        var provenance = ReportProvenance.current
        /// Run-to-run peak variation measured while writing the report, if any.
        var noise: PeakNoise?
    }

    /// The list thumbnails' records: every section but the carousel's is of them.
    let records: [ImageMetricsRecord]
    let comparison: MemoryComparison
    /// Product details' carousel images (`warm run --detail-images`), at their own size; empty without.
    let carouselRecords: [ImageMetricsRecord]
    /// Nil without carousel records.
    let carouselComparison: MemoryComparison?
    let context: Context

    init(records: [ImageMetricsRecord], cacheLimitBytes: Int, context: Context) {
        self.records = records.filter(\.isThumbnail)
        self.comparison = MemoryComparison(records: self.records, cacheLimitBytes: cacheLimitBytes)
        carouselRecords = records.filter { !$0.isThumbnail }
        carouselComparison = carouselRecords.isEmpty ? nil
            : MemoryComparison(records: carouselRecords, cacheLimitBytes: cacheLimitBytes)
        self.context = context
    }

    /// One line for a terminal: how many images were compared and each strategy's total.
    var summary: String {
        var text = "\(comparison.comparedCount) of \(comparison.imageCount) images compared; "
            + comparison.columns.map { "\($0.kind.rawValue) \(ReportFormat.megabytes($0.statistics.totalRetainedBytes))" }
            .joined(separator: ", ")
        if let carousel = carouselComparison {
            text += "; carousel: \(carousel.comparedCount) of \(carousel.imageCount) at "
                + carousel.targetLongestSides.map { "\($0) px" }.joined(separator: ", ") + ", "
                + carousel.columns.map { "\($0.kind.rawValue) \(ReportFormat.megabytes($0.statistics.totalRetainedBytes))" }
                .joined(separator: ", ")
        }
        return text
    }

    func markdown() -> String { MarkdownRenderer.render(document) }
    func html() -> String { HTMLRenderer.render(document, records: records.filter(\.isComplete)) }

    /// Writes `memory-comparison.md` and `memory-comparison.html` into `directory` (created if missing).
    /// - Returns: the two paths.
    @discardableResult
    func write(to directory: String) throws(MetricsFileError) -> [String] {
        var written: [String] = []
        for (name, text) in [("memory-comparison.md", markdown()), ("memory-comparison.html", html())] {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            try MetricsFileError.write(Data(text.utf8), to: path)
            written.append(path)
        }
        return written
    }

    // MARK: The document

    var document: ReportDocument {
        ReportDocument(title: "Memory comparison: naive decode, renderer resize, thumbnail-at-decode",
                       sections: [ReportDocument.Section(title: "Summary", blocks: [.paragraph(introText)]), catalogSection]
                           + [carouselSection, cacheBytesSection, variantSection].compactMap { $0 } + laterSections)
    }

    private var catalogSection: ReportDocument.Section {
        ReportDocument.Section(title: "Memory-cache use for the catalog (N = \(ReportFormat.count(comparison.comparedCount)))", blocks: [
            .paragraph("What a memory cache holding every decoded image would use: the sum, over the catalog, of the bytes of the bitmap each strategy keeps (retained bytes = output width x height x 4, read from the bitmap libvips really allocated)."),
            .table(seedsTable()),
            .paragraph("Both ways the seeds state an improvement: \"times smaller\" is naive / strategy; \"less memory\" is (naive - strategy) / naive, the seeds' \"96.42% less\". The seeds' own improvement row (112%, 2,422%) is naive / strategy - 1."),
            .table(Self.seedsReference),
            .chart(.retainedDistribution, caption: "Retained bytes per image, by strategy (log axis; box: p25-p75, line: median, dots: images)"),
            .chart(.retainedVersusPixels, caption: "Retained bytes against source pixels (log-log): naive grows with the source, renderer and thumbnail stay at the target size"),
        ])
    }

    private var laterSections: [ReportDocument.Section] {
        [
            ReportDocument.Section(title: "Transient memory, time and quality", blocks: [
                .paragraph("Peak transient memory is the most memory the process gained while one strategy decoded one image, its output still alive (see How this was measured). CPU is process user + system time. SSIM and PSNR compare each output with a Lanczos3 resample of the full decode at the same size; naive is that full decode, so it has none."),
                .table(besideTable),
                .paragraph(peakComparisonText),
                .chart(.peakDistribution, caption: "Peak transient memory per image, by strategy (log axis)"),
            ]),
            ReportDocument.Section(title: "By format", blocks: [.table(formatTable)]),
            ReportDocument.Section(title: "Memory-cache simulation (strict LRU)", blocks: [
                .paragraph(CacheSimulation.accessPattern),
                .paragraph("The cache is a strict LRU (`CacheSimulation`): it never holds more than its limit. NSCache's totalCostLimit is not strict (the seeds saw a 100 MB-limited NSCache use 150-250 MB), so an iOS app would hold more than this simulation, not less."),
                .table(cacheTable),
            ]),
            ReportDocument.Section(title: "Images and failures", blocks: failureBlocks),
            ReportDocument.Section(title: "How this was measured", blocks: methodBlocks),
        ]
    }

    /// The seeds' two peak claims, checked image by image, with the measured noise beside them.
    var peakComparisonText: String {
        let pairs = PeakComparison(records: records)
        let r = pairs.renderer, t = pairs.thumbnail
        var text = "Per image: renderer's peak is at least naive's on \(ReportFormat.count(r.atLeastNaive)) of \(ReportFormat.count(r.images)) images"
        if r.atLeastNaive < r.images {
            text += "; on the other \(ReportFormat.count(r.images - r.atLeastNaive)) it is lower by at most \(ReportFormat.megabytes(r.largestShortfallBytes)) (\(ReportFormat.percent(r.largestShortfallFraction, decimals: 2)) of that image's naive peak)"
        }
        text += ", median difference \(ReportFormat.megabytes(r.medianDifferenceBytes)). Renderer allocates its target-size canvas first, then runs the naive decode and draws it into the canvas, so its true peak is naive's plus the canvas"
        text += "; it is at least naive's minus the measuring noise (\(PeakComparison.noiseText)) on \(ReportFormat.count(r.atLeastNaiveWithinNoise)) of \(ReportFormat.count(r.images))"
        text += ". "
        text += "Thumbnail-at-decode's peak is below naive's on \(ReportFormat.count(t.belowNaive)) of \(ReportFormat.count(t.images)) JPEGs whose longest side is more than 4x the target"
        if let ratio = t.smallestRatio { text += " (naive's peak is at least \(ReportFormat.number(ratio, decimals: 1))x thumbnail's on every one of them)" }
        return text + "."
    }

    /// Which images had their peaks measured, when not all did (nil: all did).
    var sampleText: String? {
        guard comparison.isSampled else { return nil }
        let measured = records.filter(\.measured).count
        let all = records.count
        let sized = records.filter { $0.measured && $0.isComplete && $0.sourcePixels != nil }
        let checked = sized.count
        // A loop, not `filter`: Swift 6.3.1's optimizer crashes (CopyPropagation) on the closure form in release builds.
        var agreeing = 0
        for record in sized {
            let expected = (record.sourcePixels ?? 0) * 4
            if record.strategies[.naive]?.retainedBytes == expected { agreeing += 1 }
        }
        let oneIn = measured > 0 ? ", about one in \(ReportFormat.number(Double(all) / Double(measured), decimals: 0)) (chosen by URL hash: `--compare sample` or `--compare-one-in`)" : ""
        return "Sample: peaks measured for \(ReportFormat.count(measured)) of \(ReportFormat.count(all)) images\(oneIn). The other \(ReportFormat.count(all - measured)) were warmed but not measured: their records hold retained bytes computed without decoding again, from the source's header and the stored thumbnail's size (naive: source width x height x 4; renderer: its target-size canvas, width x height x 4; thumbnail: the stored thumbnail's width x height x 4, the same decode as thumbnail-at-decode's). The memory-cache tables, the LRU simulation and the retained-bytes charts cover all \(ReportFormat.count(comparison.comparedCount)) decoded images; the peak, CPU, throughput and quality figures and the peak chart cover the \(ReportFormat.count(comparison.measuredCount)) measured ones. Check of the rule on the measured images: naive's measured retained bytes equal width x height x 4 on \(ReportFormat.count(agreeing)) of \(ReportFormat.count(checked))."
    }

    private var methodBlocks: [ReportDocument.Block] {
        let repeats = StrategyMeasurer.Repeats()
        var items = [
            "Each run of each strategy on each image is a child process of its own, forked from a measuring process (`warm measure-server`, \(Machine.cores > 1 ? "one per core" : "one")) that has loaded the code, started libvips (no threads) and made its mapped files resident, but never decoded. By default naive runs \(repeats.naive) times, renderer \(repeats.renderer), thumbnail-at-decode \(repeats.thumbnail) (`--measure-repeats`), and the lowest peak of each is kept with that run's CPU and wall time.",
            "Thumbnail-at-decode is the shipped engine (`ThumbnailEncoder`, what the cache writer runs) with the run's output format and quality: decode, resize and encode are inside the measured span; its retained bytes are output width x height x 4 (what an app holds once it decodes the bytes), its `outputSHA256` is the SHA-256 of the bytes it encoded (the cached file's), and its SSIM and PSNR score those bytes decoded. Naive and renderer are libvips models of `UIImage(data:)` and `UIGraphicsImageRenderer`; their retained bytes are the RGBA bitmap (width x height x 4) they return.",
            "Peak: " + PeakMethod.forkedProcess.explanation + ". It counts every page the child touched while the strategy ran: pixel buffers, codec scratch, libvips' buffers, thread stacks. The measuring process runs with glibc's measuring settings (one arena, 64 KiB mmap threshold, no top pad) and keeps address-space randomisation. What a child pays on its first decode (libvips' worker threads, the codecs' first-use allocations) is in every peak, the same for every image of a format.",
            "Noise: \(PeakComparison.noiseText). Renderer holds a canvas on top of all naive holds, so renderer's peak is checked against naive's minus that noise.",
            "SSIM and PSNR are computed, unmeasured, in the child of renderer's first run once its span is measured, against a Lanczos3 reference made from the naive bitmap.",
        ]
        if comparison.peakMethods.contains(where: { $0 != .forkedProcess }) {
            items.append("Some records were written by an older version (\(comparison.peakMethods.filter { $0 != .forkedProcess }.map(\.explanation).joined(separator: "; "))).")
        }
        if let sample = sampleText { items.insert(sample, at: 0) }
        items += [
            "CPU: `getrusage(RUSAGE_SELF)` user + system delta (libvips decodes on its own worker threads, which per-thread CPU time would miss). Wall: monotonic clock.",
            "SSIM: luma (BT.601 integer weights), every 8x8 window at stride 1, uniform weights, K1 = 0.01, K2 = 0.03, mean over windows; PSNR over RGB, capped at 100 dB. Transparent pixels are composited over white first.",
            "Percentiles are nearest-rank (every figure is a measured value).",
        ]
        if comparison.peakMethods.count > 1 {
            items.append("Warning: the records mix peak methods (\(comparison.peakMethods.map(\.rawValue).joined(separator: ", "))); their peaks are not comparable.")
        }
        var blocks: [ReportDocument.Block] = [.list(items)]
        if let noise = context.noise {
            blocks.append(.paragraph("Noise: run-to-run variation of the peak, measured while this report was written, on this machine: \(noise.subject), measured \(noise.repeats) times in a row (\(noise.peakMethod.rawValue)). Differences between peaks smaller than the max - min range here are not meaningful; `warm check` warns (advisory) only past \(ReportFormat.megabytes(RegressionCheck().peakAllowanceBytes)) of noise on top of its relative tolerance, and fails on decoded pixels, which do not move."))
            blocks.append(.table(ReportDocument.Table(
                header: ["strategy", "min", "median", "max", "max - min", "std. dev."],
                rows: noise.spreads.map { s in
                    [s.kind.rawValue, ReportFormat.megabytes(s.minBytes), ReportFormat.megabytes(s.medianBytes),
                     ReportFormat.megabytes(s.maxBytes), ReportFormat.megabytes(s.rangeBytes),
                     ReportFormat.megabytes(s.standardDeviationBytes)]
                },
                numericColumns: [1, 2, 3, 4, 5])))
        } else {
            blocks.append(.paragraph("Noise: not measured for this report (run `warm report` with `--noise-repeats` above 0)."))
        }
        return blocks
    }
}
