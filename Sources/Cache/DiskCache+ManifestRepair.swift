import Foundation
import GRDB
import Logging

/// What `DiskCache.openRepairing` did with a broken manifest.
public struct ManifestRepair: Sendable, Equatable {
    public var reason: String
    /// `manifest.sqlite.broken-<UTC time>`.
    public var movedTo: String
}

extension DiskCache {
    /// An unreadable manifest is moved aside and a new one started (LAYOUT.md, "A broken manifest"). Hold the
    /// `CacheLock`. Costs a `quick_check` (one read of the manifest) on every open.
    public static func openRepairing(root: String, shard: CacheShard? = nil, maxAgeSeconds: Double, logger: Logger,
                                     faults: FaultInjector? = nil) throws(CacheError) -> (DiskCache, ManifestRepair?) {
        let layout = CacheLayout(root: root, shard: shard)
        let reason: String
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: layout.manifestPath, isDirectory: &isDirectory) && isDirectory.boolValue {
            reason = "it is a directory"
        } else {
            do {
                let cache = try open(root: root, shard: shard, maxAgeSeconds: maxAgeSeconds, logger: logger, faults: faults)
                guard let problem = cache.manifestIntegrityProblem() else { return (cache, nil) }
                try? cache.close()
                reason = problem
            } catch .manifestBroken(_, let problem) {
                reason = problem
            }
        }
        let movedTo = try moveAside(layout)
        logger.error("the cache manifest is broken; moved it aside and starting a new one (the run downloads what the catalog lists)",
                     metadata: ["manifest": "\(layout.manifestPath)", "reason": "\(reason)", "movedTo": "\(movedTo)"])
        let cache = try open(root: root, shard: shard, maxAgeSeconds: maxAgeSeconds, logger: logger, faults: faults)
        // Files only the broken manifest named go (the run downloads what the catalog still lists).
        if shard == nil { _ = try cache.maintenance.collectGarbage() }
        return (cache, ManifestRepair(reason: reason, movedTo: movedTo))
    }

    /// nil when SQLite's `quick_check` finds the manifest sound, else its first complaint.
    public func manifestIntegrityProblem() -> String? {
        do {
            let lines = try pool.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(1)") }
            return lines == ["ok"] ? nil : lines.first ?? "quick_check returned nothing"
        } catch {
            return "\(Self.mapDatabaseError(error, layout: layout))"
        }
    }

    /// Renames the manifest (and its -wal, -shm) to `<name>.broken-<UTC time>[-wal|-shm]`.
    private static func moveAside(_ layout: CacheLayout) throws(CacheError) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        let stamp = formatter.string(from: Date()).replacingOccurrences(of: ":", with: "")
        let target = layout.manifestPath + ".broken-" + stamp
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: layout.manifestPath + suffix) {
            guard rename(layout.manifestPath + suffix, target + suffix) == 0 else {
                throw CacheError.system("rename", path: layout.manifestPath + suffix, errno: errno)
            }
        }
        return target
    }
}
