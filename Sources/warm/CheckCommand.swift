import ArgumentParser
import Foundation
import WarmMetrics

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Fail when thumbnail-at-decode got worse than a baseline: decoded pixels, size, memory, quality or decoding.",
        discussion: """
            Images are matched by the SHA-256 of their source bytes, else by URL path and query, so the catalog may be \
            served on any host, port or scheme; other bytes at the same path are "changed", not compared. Only figures \
            that count the work fail the check, so it gives the same answer on any machine, load and build. Per image, a \
            regression is: more pixels decoded by the thumbnail path than the baseline's from the same source bytes (a lost \
            shrink-on-load step, a fall-back to a larger decode); retained bytes above baseline x (1 + tolerance); SSIM \
            below --min-ssim, or more than --max-ssim-drop below the baseline's; a different output size; an image that \
            decoded in the baseline and now fails. Over the catalog, the median and p90 of the per-image retained-bytes \
            ratio must stay within 1.01. Peaks (per image and over the catalog) and the CPU spread (between runs of one \
            build) are advisory: printed as warnings above their limits, never failing the check (docs/measuring.md gives \
            their noise). The check refuses to pass when it compared fewer of the baseline's images than --min-compared \
            (default: all), when decoded pixels were not counted on either side (a baseline before version 3), when the \
            decoders' versions differ from the baseline's, or when the target size, format or quality differ.
            --update-baseline writes the baseline from the metrics instead (sorted, stable JSON) and checks nothing.
            Exit status: \(ExitStatus.checkDocumentation)
            """)

    @Option(name: .customLong("metrics"), parsing: .upToNextOption,
            help: ArgumentHelp("JSON Lines metrics files.", valueName: "file"))
    var metricsFiles: [String]

    @Option(help: ArgumentHelp("Baseline JSON file.", valueName: "file"))
    var baseline: String

    @Flag(help: "Write the baseline from the metrics instead of checking.")
    var updateBaseline = false

    @Option(help: "Relative growth allowed for one image's retained bytes, and its peak before a warning (0.10 = +10%).")
    var tolerance: Double = RegressionCheck().tolerance

    @Option(name: .customLong("min-ssim"), help: "Lowest acceptable thumbnail SSIM against the Lanczos3 reference.")
    var minSSIM: Double = RegressionCheck().minimumSSIM

    @Option(name: .customLong("max-ssim-drop"), help: "Most an image's SSIM may fall below the baseline's.")
    var maxSSIMDrop: Double = RegressionCheck().maximumSSIMDrop

    @Option(help: "Advisory: bytes one image's peak may grow on top of the tolerance before a warning.")
    var peakAllowanceBytes: Int = RegressionCheck().peakAllowanceBytes

    @Option(help: "Advisory limit of the median of the per-image thumbnail peak ratio now/baseline.")
    var peakMedianLimit: Double = RegressionCheck.RatioLimits.peak.median

    @Option(help: "Advisory limit of the p90 of the per-image thumbnail peak ratio now/baseline.")
    var peakP90Limit: Double = RegressionCheck.RatioLimits.peak.p90

    @Option(help: "Advisory limit of the p90 of the per-image thumbnail CPU ratio now/baseline over its median.")
    var cpuSpreadLimit: Double = RegressionCheck().cpuSpreadLimit

    @Option(help: ArgumentHelp("Baseline images that must be compared (default: all of them).", valueName: "count"))
    var minCompared: Int?

    @Flag(help: "Leave peaks and CPU time out of the output (they are advisory either way).")
    var sizesOnly = false

    @Option(help: ArgumentHelp("Also write the result as JUnit XML (a test case per baseline image and per catalog figure).", valueName: "file"))
    var junit: String?

    @Option(help: ArgumentHelp("Also write the result as JSON.", valueName: "file"))
    var json: String?

    func validate() throws {
        guard !metricsFiles.isEmpty else { throw ValidationError("Give at least one --metrics file.") }
        try OptionCheck.number(tolerance, in: 0...100, option: "--tolerance")
        guard (0...1).contains(minSSIM) else { throw ValidationError("--min-ssim must be between 0 and 1.") }
        guard (0...1).contains(maxSSIMDrop) else { throw ValidationError("--max-ssim-drop must be between 0 and 1.") }
        guard peakAllowanceBytes >= 0 else { throw ValidationError("--peak-allowance-bytes cannot be negative.") }
        try OptionCheck.number(peakMedianLimit, in: 1...1000, option: "--peak-median-limit")
        try OptionCheck.number(peakP90Limit, in: 1...1000, option: "--peak-p90-limit")
        try OptionCheck.number(cpuSpreadLimit, in: 1...1000, option: "--cpu-spread-limit")
        guard (minCompared ?? 0) >= 0 else { throw ValidationError("--min-compared cannot be negative.") }
    }

    var check: RegressionCheck {
        RegressionCheck(tolerance: tolerance, minimumSSIM: minSSIM, maximumSSIMDrop: maxSSIMDrop,
                        peakAllowanceBytes: peakAllowanceBytes,
                        peakRatioLimits: .init(median: peakMedianLimit, p90: peakP90Limit), cpuSpreadLimit: cpuSpreadLimit,
                        minimumCompared: minCompared, sizesOnly: sizesOnly)
    }

    func run() async throws {
        do {
            let records = ShardedRecords.inCatalogOrder(try JSONLinesReader.read(paths: metricsFiles))
            guard !records.isEmpty else {
                throw Console.failure("\(metricsFiles.joined(separator: ", ")) hold no metrics records.")
            }
            if updateBaseline { return try writeBaseline(records) }
            let outcome = check.run(records: records, against: try MetricsBaseline.read(path: baseline))
            if let junit { try outcome.writeJUnit(to: junit) }
            if let json { try outcome.writeJSON(to: json) }
            for line in outcome.lines() { print(line) }
            if !outcome.shortfalls.isEmpty { throw ExitStatus.checkIncomparable }
            if !outcome.passed { throw ExitStatus.regressed }
        } catch let error as MetricsFileError {
            throw Console.failure(error)
        }
    }

    private func writeBaseline(_ records: [ImageMetricsRecord]) throws {
        // A baseline holds the list thumbnails (carousel records are reported, not checked).
        let records = records.filter(\.isThumbnail)
        let targets = Set(records.map(\.targetLongestSide))
        guard targets.count == 1 else {
            throw Console.failure("the metrics mix target sizes (\(targets.sorted().map { "\($0) px" }.joined(separator: ", "))); a baseline holds one.")
        }
        let written = MetricsBaseline(records: records)
        try written.write(to: baseline)
        print("wrote \(baseline): \(written.images.count) images at \(written.targetLongestSide) px")
        let withoutPeak = written.images.filter { $0.decoded && $0.peakBytes == nil }.count
        if withoutPeak > 0 {
            print("note: \(withoutPeak) images were not measured (a sampled run): the baseline keeps their sizes and decoded pixels but no peak or SSIM; measure with --compare all for a baseline of every figure")
        }
        let uncounted = written.images.filter { $0.decoded && $0.decodedPixels == nil }.count
        if uncounted > 0 {
            print("note: \(uncounted) images have no decoded-pixel count (metrics written by an older warm or from cache entries): a check against this baseline will refuse to stand for them")
        }
    }
}
