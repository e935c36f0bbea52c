import Dispatch
import Foundation

/// `warm measure-server` runs before any Swift concurrency starts a thread, because it forks a child
/// per measurement and a fork must not copy threads; every other command goes to `Warm`.
@main
enum Entry {
    static func main() {
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
