import ArgumentParser
import Foundation
import WarmMetrics

/// The measuring process (hidden; `MeasuringServer`), started by the measuring commands.
struct MeasureServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: MeasuringServer.commandName,
        abstract: "Measure decode strategies in forked children, one per request (started by the measuring commands).",
        shouldDisplay: false)

    /// Reached only through `Entry`, which serves it before parsing; here for `--help`.
    func run() throws {
        Self.serveAndExit()
    }

    /// Serves requests until standard input ends, in this (single-threaded) process.
    static func serveAndExit() -> Never {
        do {
            try MeasuringServer.serve()
        } catch {
            Console.error("error: \(error)")
            Foundation.exit(1)
        }
    }
}
