import ArgumentParser
import Cache
import Foundation

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Entries, bytes and failures of a cache directory.")

    @Argument(help: "The cache directory.")
    var directory: String

    @Flag(help: "Print JSON.")
    var json = false

    func run() async throws {
        let stats = try CacheAccess.reading(directory) { try $0.maintenance.stats() }
        if json {
            var object: [String: Any] = [
                "entries": stats.entryCount, "failed": stats.failedCount, "bytes": stats.totalBytes,
                "expired": stats.expiredCount,
                "variants": stats.variants.mapValues { ["count": $0.count, "bytes": $0.bytes] },
            ]
            object["oldestFetchedAt"] = stats.oldestFetchedAt
            object["newestFetchedAt"] = stats.newestFetchedAt
            print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
            return
        }
        print("\(directory): \(stats.entryCount) entries, \(stats.totalBytes) bytes, \(stats.failedCount) failed, \(stats.expiredCount) expired")
        for (name, totals) in stats.variants.sorted(by: { $0.key < $1.key }) {
            print("  \(name): \(totals.count) files, \(totals.bytes) bytes")
        }
    }
}

/// How the cache commands open a cache and report its errors.
enum CacheAccess {
    /// Runs `body` on an existing cache as `reading` does. Never creates one (a typo should not make an empty
    /// cache), leaves temp files to the run writing them, refuses a damaged manifest when asked. Read-only, so it
    /// works on a full disk: GRDB's writable open writes even when nothing else does (it recreates a non-empty WAL).
    static func reading<T>(_ directory: String, checkingIntegrity: Bool = false,
                           _ body: (DiskCache) throws -> T) throws -> T {
        let manifest = URL(fileURLWithPath: directory).appendingPathComponent("manifest.sqlite").path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: manifest, isDirectory: &isDirectory) else {
            throw Console.failure("\(directory) is not a warm cache directory (no manifest.sqlite)")
        }
        if isDirectory.boolValue {
            throw Console.failure(CacheError.manifestBroken(path: manifest, reason: "it is a directory"))
        }
        let cache = try reading {
            try DiskCache.open(root: directory, removingTemporaryFiles: false, readOnly: true)
        }
        if checkingIntegrity, let problem = cache.manifestIntegrityProblem() {
            try? cache.close()
            throw Console.failure(CacheError.manifestBroken(path: directory + "/manifest.sqlite", reason: problem))
        }
        defer { try? cache.close() }
        return try reading { try body(cache) }
    }

    /// Runs `body`, turning a `CacheError` into its sentence and exit status 1
    /// (75 when a lock is held) instead of a bare error.
    static func reading<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CacheError {
            throw Console.failure(error)
        }
    }
}
