import ArgumentParser
import Foundation
import WarmMetrics

/// The measuring process (hidden; `MeasuringServer`), started by the measuring commands; `Entry` runs it
/// before any thread starts.
struct MeasureServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: MeasuringServer.commandName,
        abstract: "Measure decode strategies in forked children, one per request (started by the measuring commands).",
        shouldDisplay: false)

    /// Serves requests until standard input ends, in this (single-threaded) process.
    func run() throws {
        do {
            try MeasuringServer.serve()
        } catch {
            throw Console.failure(error)
        }
    }
}
