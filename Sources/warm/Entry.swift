import ArgumentParser
import Dispatch
import Foundation

/// `warm measure-server` runs before any Swift concurrency starts a thread, because it forks a child
/// per measurement and a fork must not copy threads; every other command goes to `Warm`.
@main
enum Entry {
    static func main() {
        // Before any command: a mistyped WARM_LOG_LEVEL must not quietly log at the default level.
        do {
            _ = try LogSetup.settings(environment: ProcessInfo.processInfo.environment)
        } catch {
            Console.error("error: \(error)")
            exit(ExitCode.validationFailure.rawValue)
        }
        if CommandLine.arguments.dropFirst().first == MeasureServerCommand.configuration.commandName {
            MeasureServerCommand.main(Array(CommandLine.arguments.dropFirst(2)))
        }
        Task {
            await Warm.main()
            exit(0)
        }
        dispatchMain()
    }
}
