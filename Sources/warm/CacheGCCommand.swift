import ArgumentParser
import Cache
import Foundation

struct CacheGCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove orphan files (no manifest row names them) and leftover temporary files, printing each.",
        discussion: """
            Holds the directory's lock and every shard's lock while it works, so it never races a run. Files a shard's \
            manifest names are kept: in a sharded tree run `warm cache merge` first, then `verify` passes after gc.
            Exit status: 0 done; 1 something could not be removed (listed); 75 a run, merge or shard holds a lock.
            """)

    @Argument(help: "The cache directory.")
    var directory: String

    func run() async throws {
        let result = try CacheAccess.reading {
            let lock = try CacheLock.acquire(root: directory)
            defer { lock.release() }
            // gc lists and removes temp files itself, to print them.
            let cache = try DiskCache.open(root: directory, logger: LogSetup.logger(), removingTemporaryFiles: false)
            defer { try? cache.close() }
            return try cache.maintenance.collectGarbage()
        }
        for path in result.removedOrphanFiles { print("removed orphan file: \(path)") }
        for path in result.removedTemporaryFiles { print("removed temporary file: \(path)") }
        for problem in result.unremovable { Console.error("could not remove: \(problem)") }
        print("\(directory): removed \(result.removedOrphanFiles.count) orphan files and \(result.removedTemporaryFiles.count) temporary files")
        if !result.unremovable.isEmpty { throw ExitStatus.failed }
    }
}
