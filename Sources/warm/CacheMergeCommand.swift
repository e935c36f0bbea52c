import ArgumentParser
import Cache
import Foundation
import Logging

struct CacheMergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the manifests of a sharded run (shards/I-of-N/) into the cache directory's manifest.",
        discussion: """
            Run it after every shard has finished; then `warm cache stats/get/verify DIR` see the whole tree. Idempotent: \
            running it again (for example after a crash) changes nothing more. Per entry the newer row wins. Last (after \
            the eviction), it publishes the merged manifest as DIR/published/manifest-<n>.sqlite, an immutable copy \
            that `warm cache serve` on other hosts reads, and points DIR/published/manifest.sqlite at it.
            Exit status: 0 merged; 1 could not merge; 75 a shard (or another merge or run) still holds its lock.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    @Option(help: ArgumentHelp(
        "After merging, evict across all shards until the tree is at most this size: " + CacheSizeArgument.help + ".",
        discussion: "Images the newest listing did not name go first, least recently used first. Each evicted entry's row "
            + "goes from every shard manifest and the tree's before its file, so no shard keeps a row whose file is gone."))
    var maxCacheSize: CacheSizeArgument?

    func validate() throws {
        try maxCacheSize?.validate(option: "--max-cache-size")
    }

    func run() async throws {
        let maxBytes = try maxCacheSize?.bytes(forCacheAt: directory, option: "--max-cache-size")
        let (result, evicted, published) = try CacheAccess.reading {
            try CacheMaintenance.mergeTree(root: directory, maxBytes: maxBytes, publishing: true, logger: LogSetup.logger())
        }
        let shards = result.mergedShards.map(\.description).joined(separator: ", ")
        print("\(directory): merged \(result.mergedShards.count) shards (\(shards.isEmpty ? "none found" : shards)): "
              + "\(result.insertedRows) rows added, \(result.updatedRows) updated, \(result.unchangedRows) unchanged"
              + (result.prunedRows > 0 ? ", \(result.prunedRows) pruned by their shard removed" : "")
              + (result.removedTemporaryFileCount > 0 ? ", \(result.removedTemporaryFileCount) leftover temp files removed" : ""))
        if let evicted { print(CacheEvictCommand.line(directory: directory, evicted)) }
        if let published { print("\(directory): published \(published)") }
    }
}
