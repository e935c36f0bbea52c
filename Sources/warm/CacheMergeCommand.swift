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
            running it again (for example after a crash) changes nothing more. Per entry the newer row wins.
            Exit status: 0 merged; 1 could not merge; 75 a shard (or another merge or run) still holds its lock.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    func run() async throws {
        let logger = LogSetup.logger()
        let result: ShardMergeResult
        do {
            result = try Self.merge(directory: directory, logger: logger)
        } catch {
            Console.error("error: \(error)")
            if case .locked = error { throw ExitStatus.locked }
            throw ExitStatus.failed
        }
        let shards = result.mergedShards.map(\.description).joined(separator: ", ")
        print("\(directory): merged \(result.mergedShards.count) shards (\(shards.isEmpty ? "none found" : shards)): "
              + "\(result.insertedRows) rows added, \(result.updatedRows) updated, \(result.unchangedRows) unchanged"
              + (result.removedTemporaryFileCount > 0 ? ", \(result.removedTemporaryFileCount) leftover temp files removed" : ""))
    }

    /// Holds the tree's lock (no unsharded run or other merge meanwhile) while merging.
    private static func merge(directory: String, logger: Logger) throws(CacheError) -> ShardMergeResult {
        let lock = try CacheLock.acquire(root: directory)
        defer { lock.release() }
        let cache = try DiskCache.open(root: directory, logger: logger)
        defer { try? cache.close() }
        return try cache.mergeShards(logger: logger)
    }
}
