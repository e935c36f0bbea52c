import Dispatch
import Foundation

/// The program's entry point: `warm measure-server` is served before any
/// Swift concurrency runs, because it forks a child per measurement and a
/// fork must not copy threads (Swift concurrency on Linux runs on Dispatch
/// worker threads, which an async main starts at once); every other command
/// goes to `Warm` (swift-argument-parser) as usual.
@main
enum Entry {
    static func main() {
        if CommandLine.arguments.dropFirst().first == MeasureServerCommand.configuration.commandName {
            MeasureServerCommand.serveAndExit()
        }
        Task {
            await Warm.main()
            exit(0)
        }
        dispatchMain()
    }
}
