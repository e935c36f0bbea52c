import ArgumentParser
import ChildProcesses
import Foundation
import Pipeline
import WarmMetrics

/// How the measuring commands measure: every strategy run in a child forked
/// by a measuring process, one measuring process per core.
struct MeasurementOptions: ParsableArguments {
    @Option(help: "Measuring processes, each measuring one strategy run at a time (default: the number of cores).")
    var measureProcesses: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: """
        Runs of naive and of renderer per image, and of thumbnail-at-decode; the lowest peak of each is kept \
        (default \(StrategyMeasurer.Configuration.defaultFullDecodeRepeats),\(StrategyMeasurer.Configuration.defaultThumbnailRepeats)).
        """)
    var measureRepeats: String?

    // Retired ways of measuring: still accepted so that no command line breaks, ignored with a warning.
    @Flag(help: .hidden) var measureInProcess = false
    @Flag(help: .hidden) var measureExecEach = false
    @Option(help: .hidden) var measureOnceFromPixels: Int?

    /// (naive and renderer, thumbnail) runs per image, when given.
    var repeats: (full: Int, thumbnail: Int)? {
        guard let text = measureRepeats else { return nil }
        let parts = text.split(separator: ",").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 >= 1 }) else { return nil }
        return (parts[0], parts[1])
    }

    func validate() throws {
        if measureRepeats != nil && repeats == nil {
            throw ValidationError("--measure-repeats takes two positive counts, e.g. 2,3 (naive and renderer, thumbnail).")
        }
        guard measureProcesses >= 1 else { throw ValidationError("--measure-processes must be at least 1.") }
        let retired = [(measureInProcess, "--measure-in-process"), (measureExecEach, "--measure-exec-each"),
                       (measureOnceFromPixels != nil, "--measure-once-from-pixels")]
        for (given, option) in retired where given {
            Console.error("warning: \(option) is ignored: measuring now always uses children forked by measuring processes.")
        }
    }

    /// The measuring processes of this executable (started on first use).
    func pool() -> MeasuringPool {
        MeasuringPool(executablePath: ChildProcess.currentExecutablePath(), processes: measureProcesses)
    }
}
