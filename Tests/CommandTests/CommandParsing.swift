import ArgumentParser
@testable import warm

/// `warm` parsed in the test process, as the binary parses it before it runs anything: ArgumentParser's parsing
/// and every `validate()`.
enum CommandParsing {
    enum Outcome: Equatable {
        case accepted
        /// `message` is the error alone, without the usage lines (which name every option).
        case rejected(status: Int32, message: String)
    }

    static func parse(_ arguments: [String]) -> Outcome {
        do {
            _ = try Warm.parseAsRoot(arguments)
            return .accepted
        } catch {
            return .rejected(status: Warm.exitCode(for: error).rawValue, message: Warm.message(for: error))
        }
    }

    /// What `warm help <path>` prints ("" for a path that names no command). Parsing `--help` gives no text: it
    /// gives the command that would print it.
    static func help(_ path: [String]) -> String {
        var command: any ParsableCommand.Type = Warm.self
        for name in path {
            guard let next = command.configuration.subcommands.first(where: { $0._commandName == name }) else { return "" }
            command = next
        }
        return Warm.helpMessage(for: command)
    }
}
