import ArgumentParser
import Foundation
import WarmMetrics

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Fail when thumbnail-at-decode got worse than a baseline: memory, peak, quality, size or decoding.",
        discussion: """
            Images are matched by URL. A regression is: retained bytes above baseline x (1 + tolerance); peak bytes above \
            baseline x (1 + tolerance) + the peak allowance (measurement noise); SSIM below --min-ssim; a different output \
            size (a changed target size shows up here for every image); an image that decoded in the baseline and now fails. \
            Each regression is printed on its own line with the URL and the numbers.
            --update-baseline writes the baseline from the metrics instead (sorted, stable JSON holding only what the check \
            needs, with the target size) and checks nothing.
            Exit status: \(ExitStatus.checkDocumentation)
            """)

    @Option(name: .customLong("metrics"), parsing: .upToNextOption,
            help: ArgumentHelp("JSON Lines metrics files.", valueName: "file"))
    var metricsFiles: [String]

    @Option(help: ArgumentHelp("Baseline JSON file.", valueName: "file"))
    var baseline: String

    @Flag(help: "Write the baseline from the metrics instead of checking.")
    var updateBaseline = false

    @Option(help: "Relative growth allowed for retained and peak bytes (0.10 = +10%).")
    var tolerance: Double = RegressionCheck().tolerance

    @Option(name: .customLong("min-ssim"), help: "Lowest acceptable thumbnail SSIM against the Lanczos3 reference.")
    var minSSIM: Double = RegressionCheck().minimumSSIM

    @Option(help: "Bytes the peak may grow on top of the tolerance, for run-to-run measurement noise.")
    var peakAllowanceBytes: Int = RegressionCheck().peakAllowanceBytes

    func validate() throws {
        guard !metricsFiles.isEmpty else { throw ValidationError("Give at least one --metrics file.") }
        try OptionCheck.number(tolerance, in: 0...100, option: "--tolerance")
        guard (0...1).contains(minSSIM) else { throw ValidationError("--min-ssim must be between 0 and 1.") }
        guard peakAllowanceBytes >= 0 else { throw ValidationError("--peak-allowance-bytes cannot be negative.") }
    }

    func run() async throws {
        do {
            let records = ShardedRecords.inCatalogOrder(try JSONLinesReader.read(paths: metricsFiles))
            guard !records.isEmpty else {
                throw Console.failure("\(metricsFiles.joined(separator: ", ")) hold no metrics records.")
            }
            if updateBaseline {
                let targets = Set(records.map(\.targetLongestSide))
                guard targets.count == 1 else {
                    throw Console.failure("the metrics mix target sizes (\(targets.sorted().map { "\($0) px" }.joined(separator: ", "))); a baseline holds one.")
                }
                let written = MetricsBaseline(records: records)
                try written.write(to: baseline)
                print("wrote \(baseline): \(written.images.count) images at \(written.targetLongestSide) px")
                let withoutPeak = written.images.filter { $0.decoded && $0.peakBytes == nil }.count
                if withoutPeak > 0 {
                    print("note: \(withoutPeak) images were not measured (a sampled run): the baseline keeps their sizes but no peak to guard; measure with --compare all for a baseline of every peak")
                }
                return
            }
            let outcome = RegressionCheck(tolerance: tolerance, minimumSSIM: minSSIM, peakAllowanceBytes: peakAllowanceBytes)
                .run(records: records, against: try MetricsBaseline.read(path: baseline))
            for regression in outcome.regressions { print("regression: \(regression)") }
            for note in outcome.notes { print("note: \(note)") }
            if !outcome.missingURLs.isEmpty {
                print("note: \(outcome.missingURLs.count) baseline images are not in the metrics and were not compared")
            }
            print("\(outcome.comparedImages) images compared, \(outcome.regressions.count) regressions, \(outcome.fixedImages) fixed, \(outcome.newImages) new.")
            if !outcome.passed { throw ExitStatus.regressed }
        } catch let error as MetricsFileError {
            throw Console.failure(error)
        }
    }
}
