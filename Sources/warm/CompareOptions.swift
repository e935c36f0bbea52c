import ArgumentParser
import Foundation
import Pipeline

/// `--compare`: also measure images with all three decode strategies.
struct CompareOptions: ParsableArguments {
    @Flag(help: "Also decode every image naively and renderer-style and measure all three strategies (costly).")
    var compare = false

    @Option(help: "Measure about one image in N (chosen by URL hash, the same every run) instead of all.")
    var compareOneIn: Int?

    @Option(help: "Metrics file (JSON Lines; a CSV is written beside it). Default: <cache-dir>/metrics.jsonl when comparing.")
    var metrics: String?

    func validate() throws {
        if let n = compareOneIn, n < 1 { throw ValidationError("--compare-one-in must be at least 1.") }
    }

    var selection: CompareSelection {
        if let n = compareOneIn { return .oneIn(n) }
        return compare ? .all : .none
    }

    func metricsPath(cacheDirectory: String) -> String? {
        guard selection != .none else { return nil }
        return metrics ?? URL(fileURLWithPath: cacheDirectory).appendingPathComponent("metrics.jsonl").path
    }
}
