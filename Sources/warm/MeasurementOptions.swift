import ArgumentParser
import Foundation
import Pipeline
import WarmMetrics

/// Where the measuring commands measure each strategy's peak.
struct MeasurementOptions: ParsableArguments {
    @Flag(help: """
        Measure peaks in this process instead of one fresh child process per strategy and image \
        (faster, noisier: what earlier decodes left behind moves a peak by up to about 3%).
        """)
    var measureInProcess = false

    @Flag(help: """
        Start each measurement as a new process (exec of this binary) instead of forking it from a \
        pre-initialised measuring process: the same isolation, about 2-3 s more per image.
        """)
    var measureExecEach = false

    @Option(help: "Measuring processes, each measuring one strategy run at a time (default: the number of cores).")
    var measureProcesses: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: """
        Runs of naive and of renderer per image, and of thumbnail-at-decode; the lowest peak of each is kept         (default 2,3, and 1,3 where the measuring processes read peaks exactly).
        """)
    var measureRepeats: String?

    @Option(help: """
        Images of at least this many pixels get one run each of naive and renderer instead of the \
        --measure-repeats count (a close call between the two still gets more); a peak's run-to-run \
        spread is about the same in bytes whatever the image, so a second run buys least where it costs most.
        """)
    var measureOnceFromPixels: Int = StrategyMeasurer.Configuration.defaultSingleRunMinimumPixels

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
        guard measureOnceFromPixels >= 1 else { throw ValidationError("--measure-once-from-pixels must be at least 1.") }
        guard measureProcesses >= 1 else { throw ValidationError("--measure-processes must be at least 1.") }
        if measureInProcess && measureExecEach {
            throw ValidationError("--measure-in-process and --measure-exec-each exclude each other.")
        }
    }

    var isolation: PeakIsolation {
        if measureInProcess { return .inProcess }
        if measureExecEach { return .currentExecutable() }
        return .measuringProcesses(measureProcesses)
    }
}
