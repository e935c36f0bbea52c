import ArgumentParser
import Cache
import Foundation

struct CacheEvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Merge a sharded tree's manifests, then evict least-recently-used entries until it is at most --max-size.",
        discussion: """
            The same as `warm cache merge DIR --max-cache-size SIZE`; works on unsharded directories too. Rows go \
            before files (from every shard manifest, then the tree's), so a crash leaves only orphans for `warm cache gc`. \
            When the tree has a published manifest (DIR/published/, made by `warm cache merge`), it publishes again, so \
            origins stop naming the evicted files.
            Exit status: 0 done; 1 could not evict; 75 a run, merge or shard holds a lock.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Option(help: ArgumentHelp("Size limit of the cache files: " + CacheSizeArgument.help + "."))
    var maxSize: CacheSizeArgument

    func validate() throws {
        try maxSize.validate(option: "--max-size", allowsZero: true)
    }

    func run() async throws {
        let maxBytes = try maxSize.bytes(forCacheAt: directory, option: "--max-size")
        let (_, evicted, published) = try CacheAccess.reading {
            try CacheMaintenance.mergeTree(root: directory, maxBytes: maxBytes,
                                        publishing: try CacheMaintenance.hasPublishedSnapshot(root: directory), logger: LogSetup.logger())
        }
        if let evicted { print(Self.line(directory: directory, evicted)) }
        if let published { print("\(directory): published \(published)") }
    }

    static func line(directory: String, _ evicted: RemovalResult) -> String {
        "\(directory): evicted \(evicted.removedCount) entries (\(evicted.removedBytes) bytes); \(evicted.remainingBytes) bytes remain"
            + (evicted.unremovedFileCount > 0 ? "; \(evicted.unremovedFileCount) files could not be removed (run warm cache gc)" : "")
    }
}
