import ArgumentParser
import Downsample
import Foundation
import WarmMetrics

/// The child side of `PeakIsolation.childProcess`: measures one strategy once
/// on one image file in this fresh process and prints an
/// `IsolatedStrategyRun.Report` as one JSON line. Hidden: `warm run --compare`,
/// `warm demo` and `warm report` start it. Its command line is
/// `IsolatedStrategyRun`'s (`arguments` and `init(arguments:)`), so the parent
/// and this side read one definition.
struct MeasureStrategyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: IsolatedStrategyRun.commandName,
        abstract: "Measure one decode strategy on one image in this process (started by the measuring commands).",
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough,
              help: "<image> --strategy naive|renderer|thumbnail [--size px] [--max-pixels n] [--max-bytes n] [--peak-method m]")
    var arguments: [String] = []

    func validate() throws {
        _ = try Self.run(from: arguments)
    }

    func run() throws {
        let run = try Self.run(from: arguments)
        FileHandle.standardOutput.write(try JSONEncoder().encode(run.runHere()) + Data("\n".utf8))
    }

    private static func run(from arguments: [String]) throws -> IsolatedStrategyRun {
        do {
            return try IsolatedStrategyRun(arguments: arguments)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
