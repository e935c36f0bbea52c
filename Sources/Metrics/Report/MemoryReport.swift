import Downsample
import Foundation

/// The memory comparison report (`warm report`): the seeds' table for this
/// catalog, the transient/CPU/quality figures beside it, a per-format
/// breakdown, a strict LRU cache simulation, failures, and how it was all
/// measured. Written as Markdown and as a self-contained HTML page with SVG charts.
public struct MemoryReport: Sendable {
    /// Where the figures came from, stated in the report.
    public struct Context: Sendable {
        public var metricsPaths: [String]
        public var generatedAt: Date
        /// Run-to-run peak variation measured while writing the report, if any.
        public var noise: PeakNoise?

        public init(metricsPaths: [String], generatedAt: Date = Date(), noise: PeakNoise? = nil) {
            self.metricsPaths = metricsPaths
            self.generatedAt = generatedAt
            self.noise = noise
        }
    }

    public let records: [ImageMetricsRecord]
    public let comparison: MemoryComparison
    public let context: Context

    public init(records: [ImageMetricsRecord], cacheLimitBytes: Int, context: Context) {
        self.records = records
        self.comparison = MemoryComparison(records: records, cacheLimitBytes: cacheLimitBytes)
        self.context = context
    }

    /// One line for a terminal: how many images were compared and each strategy's total.
    public var summary: String {
        "\(comparison.comparedCount) of \(comparison.imageCount) images compared; "
            + comparison.columns.map { "\($0.kind.rawValue) \(ReportFormat.megabytes($0.statistics.totalRetainedBytes))" }
            .joined(separator: ", ")
    }

    public func markdown() -> String { MarkdownRenderer.render(document) }
    public func html() -> String { HTMLRenderer.render(document, records: records.filter(\.isComplete)) }

    /// Writes `memory-comparison.md` and `memory-comparison.html` into `directory` (created if missing).
    /// - Returns: the two paths.
    @discardableResult
    public func write(to directory: String) throws(MetricsFileError) -> [String] {
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
        let n = ReportFormat.count(comparison.comparedCount)
        return ReportDocument(title: "Memory comparison: naive decode, renderer resize, thumbnail-at-decode", sections: [
            ReportDocument.Section(title: "Summary", blocks: [.paragraph(introText)]),
            ReportDocument.Section(title: "Memory-cache use for the catalog (N = \(n))", blocks: [
                .paragraph("What a memory cache holding every decoded image would use: the sum, over the catalog, of the bytes of the bitmap each strategy keeps (retained bytes = output width x height x 4, read from the bitmap libvips really allocated)."),
                .table(seedsTable),
                .paragraph("Both ways the seeds state an improvement: \"times smaller\" is naive / strategy; \"less memory\" is (naive - strategy) / naive, the seeds' \"96.42% less\". The seeds' own improvement row (112%, 2,422%) is naive / strategy - 1."),
                .table(Self.seedsReference),
                .chart(.retainedDistribution, caption: "Retained bytes per image, by strategy (log axis; box: p25-p75, line: median, dots: images)"),
                .chart(.retainedVersusPixels, caption: "Retained bytes against source pixels (log-log): naive grows with the source, renderer and thumbnail stay at the target size"),
            ]),
            ReportDocument.Section(title: "Transient memory, time and quality", blocks: [
                .paragraph("Peak transient memory is the most memory the process gained while one strategy decoded one image, its output still alive (see How this was measured). CPU is process user + system time. SSIM and PSNR compare each output with a Lanczos3 resample of the full decode at the same size; naive is that full decode, so it has none."),
                .table(besideTable),
                .paragraph(peakComparisonText),
                .chart(.peakDistribution, caption: "Peak transient memory per image, by strategy (log axis)"),
            ]),
            ReportDocument.Section(title: "By format", blocks: [.table(formatTable)]),
            ReportDocument.Section(title: "Memory-cache simulation (strict LRU)", blocks: [
                .paragraph(CacheSimulation.accessPattern),
                .paragraph("The cache is `CostLimitedLRUCache`: it never holds more than its limit. NSCache's totalCostLimit is not strict (the seeds saw a 100 MB-limited NSCache use 150-250 MB), so an iOS app would hold more than this simulation, not less."),
                .table(cacheTable),
            ]),
            ReportDocument.Section(title: "Images and failures", blocks: failureBlocks),
            ReportDocument.Section(title: "How this was measured", blocks: methodBlocks),
        ])
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
        if r.atLeastNaive < r.images {
            text += "; a shortfall smaller than the noise (below"
            if let naive = context.noise?.spreads.first(where: { $0.kind == .naive }), naive.medianBytes > 0 {
                text += ": max - min over repeated naive decodes of one image was \(ReportFormat.percent(Double(naive.rangeBytes) / Double(naive.medianBytes), decimals: 2)) of its median"
            }
            text += ") is measurement noise, not a lower peak"
        }
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
        let agreeing = sized.filter { $0.strategies.naive?.retainedBytes == ($0.sourcePixels ?? 0) * 4 }.count
        let oneIn = measured > 0 ? ", about one in \(ReportFormat.number(Double(all) / Double(measured), decimals: 0)) (chosen by URL hash: `--compare sample` or `--compare-one-in`)" : ""
        return "Sample: peaks measured for \(ReportFormat.count(measured)) of \(ReportFormat.count(all)) images\(oneIn). The other \(ReportFormat.count(all - measured)) were warmed but not measured: their records hold retained bytes computed without decoding again, from the source's header and the stored thumbnail's size (naive: source width x height x 4; renderer: its target-size canvas, width x height x 4; thumbnail: the stored thumbnail's width x height x 4, the same decode as thumbnail-at-decode's). The memory-cache tables, the LRU simulation and the retained-bytes charts cover all \(ReportFormat.count(comparison.comparedCount)) decoded images; the peak, CPU, throughput and quality figures and the peak chart cover the \(ReportFormat.count(comparison.measuredCount)) measured ones. Check of the rule on the measured images: naive's measured retained bytes equal width x height x 4 on \(ReportFormat.count(agreeing)) of \(ReportFormat.count(checked))."
    }

    /// The repeat counts the measuring commands use.
    private static let defaultRepeats = StrategyMeasurer.Configuration(target: DecodeTarget(longestSide: 300))

    private var methodBlocks: [ReportDocument.Block] {
        let freshProcesses = comparison.peakMethods == [.freshProcess]
        var items = comparison.peakMethods == [.forkedProcess] ? [
            "Each strategy is measured on each image in processes of its own, forked for that one run: the measuring command starts \(ProcessInfo.processInfo.activeProcessorCount > 1 ? "one measuring process per core" : "a measuring process") (`warm measure-server`) that loads the code, starts libvips (which starts no thread until it decodes), makes every page of its mapped files resident and then never decodes; it forks one child per strategy run, and the child decodes, measures and exits. Naive and renderer are run \(Self.defaultRepeats.exactPeakRepeats == 1 ? "once each" : "\(Self.defaultRepeats.exactPeakRepeats) times each") (the peaks are read exactly, so the lowest of several runs buys nothing against noise in the reading; a child that fell back to VmHWM gets \(Self.defaultRepeats.fullDecodeRepeats) runs each, one each on images of at least \(Self.defaultRepeats.singleRunMinimumPixels.map { $0.formatted() } ?? "no") pixels), thumbnail-at-decode \(Self.defaultRepeats.thumbnailRepeats) times, and the lowest peak is kept with that run's CPU and wall time; when renderer's lowest peak is below naive's (renderer holds a canvas on top of all naive holds; with a child that fell back to VmHWM, whose reading can miss a few hundred KiB, less than its canvas above naive's, half its canvas on images measured once), both get \(Self.defaultRepeats.closeCallRepeats) more runs, and as many again if renderer's is still below naive's. Runs of one image go to the measuring processes side by side. Nothing another image or strategy left behind is in a child; a fork costs about a millisecond where an exec of the binary cost tens, plus the faulting-in of every library.",
            "Retained bytes: the size of the decoded RGBA bitmap (width x height x 4) each strategy returns.",
            "Peak: " + PeakMethod.forkedProcess.explanation + ". It counts every page the child touched while the strategy ran: pixel buffers, codec scratch (such as libjpeg's coefficient buffers for progressive JPEGs), libvips' buffers, thread stacks; memory allocated but never touched is not counted.",
            "The measuring process gets glibc's allocator settings from its first allocation (one arena, 64 KiB mmap threshold, no top pad) and runs without address-space randomisation (so that every measuring process lays a child out alike: with it, the same image's peak differed by up to 148 KiB from one measuring process to the next); its children inherit both, and do not trim the heap while a strategy runs (so that only the calls the measuring process watches can lower their memory); each child touches every page of its mapped files again before the strategy starts (a fork does not copy the page tables of file mappings), so that code first run by the decode is already resident. What a child still pays on its first decode (libvips' worker threads and their stacks, the codecs' first-use allocations) is in every peak, the same for every image of a format; it weighs most on the small thumbnail peaks. SSIM and PSNR are computed, unmeasured, in the child of renderer's first run once its span is measured: it scores its own output and decodes the naive bitmap (for the Lanczos3 reference) and the thumbnail again. The reference of an image whose alpha is 255 everywhere is resampled from its colour bands alone, as floats copied into memory first: the same pixels as with alpha premultiplied around the resample, at about half the CPU.",
        ] : freshProcesses ? [
            "Each strategy is measured on each image in fresh processes of its own (`warm measure-strategy`, started by the measuring command while no other image is measured): naive and renderer in \(Self.defaultRepeats.fullDecodeRepeats) processes each (one each on images of at least \(Self.defaultRepeats.singleRunMinimumPixels.map { $0.formatted() } ?? "no") pixels), thumbnail-at-decode in \(Self.defaultRepeats.thumbnailRepeats), and the lowest peak is kept with that run's CPU and wall time; when renderer's lowest peak is less than its canvas above naive's (half its canvas on images measured once; only noise brings them that close: renderer holds the canvas on top of all naive holds), both get \(Self.defaultRepeats.closeCallRepeats) more processes, and as many again if renderer's is still below naive's. Nothing another image or strategy left behind (free heap, buffers libvips releases late, grown thread stacks) is in the process.",
            "Retained bytes: the size of the decoded RGBA bitmap (width x height x 4) each strategy returns.",
            "Peak: " + PeakMethod.freshProcess.explanation + ". It counts every page the process touched while the strategy ran: pixel buffers, codec scratch (such as libjpeg's coefficient buffers for progressive JPEGs), libvips' buffers, thread stacks; memory allocated but never touched is not counted.",
            "The child gets glibc's allocator settings from its first allocation (one arena, 64 KiB mmap threshold, no top pad) and touches every page of its mapped files before the strategy starts, so that code first run by the decode is already resident. What a fresh process still pays on its first decode (libvips' worker thread and its stack, the codecs' first-use allocations) is in every peak, the same for every image of a format; it weighs most on the small thumbnail peaks.",
        ] : [
            "Each image is decoded with the three strategies one after another, in one process, while the measurer holds the process-wide exclusive permit (`MeasurementGate`): no other image decodes meanwhile.",
            "Retained bytes: the size of the decoded RGBA bitmap (width x height x 4) each strategy returns.",
            "Peak: " + comparison.peakMethods.map(\.explanation).joined(separator: "; ") + ". glibc's mmap threshold is fixed at 64 KiB and `malloc_trim(0)` runs before each strategy, so pixel buffers are mapped on allocation and returned on free; the peak includes every pixel buffer, codec scratch, libvips' own buffers and anything else the process allocated meanwhile (other threads included, for example HTTP buffers in a crawling run), and misses growth smaller than a page inside already-resident heap pages.",
            "Before each strategy the measurer waits until libvips' tracked memory has been still for 5 ms (its worker threads free the previous decode's buffers a few milliseconds late; freed inside the next measurement they would hide part of its peak). The process uses one malloc arena, so that `malloc_trim` reaches the pages worker threads allocate from; it is set when measuring starts, and threads that already had an arena keep it: setting `MALLOC_ARENA_MAX=1` in the environment of a measuring run makes the peaks steadier still.",
            "The first image of each format in a process is decoded once, unmeasured, before its measurement, so one-time costs (code paged in, worker thread stacks) do not land on it.",
        ]
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
            blocks.append(.paragraph("Noise: run-to-run variation of the peak, measured while this report was written, on this machine: \(noise.subject), measured \(noise.repeats) times in a row (\(noise.peakMethod.rawValue)). Differences between peaks smaller than the max - min range here are not meaningful; `warm check` allows the peak \(ReportFormat.megabytes(RegressionCheck.Configuration.defaultPeakAllowanceBytes)) of noise by default on top of its relative tolerance."))
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
