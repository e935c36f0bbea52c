import ArgumentParser

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Read a warmed cache directory: statistics, verification, lookups for other programs.",
        subcommands: [CacheStatsCommand.self, CacheVerifyCommand.self, CacheGetCommand.self, CacheMergeCommand.self])
}
