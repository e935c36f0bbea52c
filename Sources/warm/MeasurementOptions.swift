import ArgumentParser
import WarmSupport
import Foundation
import Pipeline
import WarmMetrics

/// How the measuring commands measure: every strategy run in a child forked
/// by a measuring process, one measuring process per core.
struct MeasurementOptions: ParsableArguments {
    @Option(help: "Measuring processes, each measuring one strategy run at a time (default: the number of cores).")
    var measureProcesses: Int?

    @Option(help: """
        Runs per image of naive, renderer and thumbnail-at-decode; the lowest peak of each is kept \
        (default \(Self.defaultRepeats); \
        two counts mean naive and renderer, thumbnail).
        """)
    var measureRepeats: String?

    static var defaultRepeats: String {
        let repeats = StrategyMeasurer.Repeats()
        return "\(repeats.naive),\(repeats.renderer),\(repeats.thumbnail)"
    }

    /// Runs per image of each strategy (the defaults without `--measure-repeats`; `validate` refuses a bad value).
    var repeats: StrategyMeasurer.Repeats {
        measureRepeats.flatMap(Self.parseRepeats) ?? StrategyMeasurer.Repeats()
    }

    /// Three counts, or two (naive and renderer, thumbnail); nil unless each is a positive integer.
    static func parseRepeats(_ text: String) -> StrategyMeasurer.Repeats? {
        let counts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        switch counts.count {
        case 2: return StrategyMeasurer.Repeats(naive: counts[0], renderer: counts[0], thumbnail: counts[1])
        case 3: return StrategyMeasurer.Repeats(naive: counts[0], renderer: counts[1], thumbnail: counts[2])
        default: return nil
        }
    }

    func validate() throws {
        if let measureRepeats, Self.parseRepeats(measureRepeats) == nil {
            throw ValidationError("--measure-repeats takes three positive counts, e.g. 2,1,3 (naive, renderer, thumbnail), or two (naive and renderer, thumbnail).")
        }
        if let measureProcesses, measureProcesses < 1 { throw ValidationError("--measure-processes must be at least 1.") }
    }

    /// The measuring processes of this executable (started on first use).
    func pool() -> MeasuringPool {
        MeasuringPool(executablePath: ChildProcess.currentExecutablePath(), processes: measureProcesses ?? Machine.cores)
    }
}
