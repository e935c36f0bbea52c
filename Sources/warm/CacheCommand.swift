import ArgumentParser

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Read and maintain a warmed cache directory: statistics, verification, lookups, merging shards, eviction, garbage, the app manifest.",
        subcommands: [CacheStatsCommand.self, CacheVerifyCommand.self, CacheGetCommand.self, CacheMergeCommand.self,
                      CacheEvictCommand.self, CacheGCCommand.self, CacheServeCommand.self, CacheExportCommand.self])
}
