import Foundation
import GRDB

extension CacheMaintenance {
    /// Takes every shard's lock too (`locked` while any run goes on). Files newer than `startedAt` stay, in case a
    /// shard that did not exist when the locks were taken has started writing, and so do files a published snapshot
    /// names (an origin on another host may serve them until the next publish).
    public func collectGarbage(startedAt: Double = Date().timeIntervalSince1970) throws(CacheError) -> GarbageCollectionResult {
        try requireTree("collect garbage through a shard's manifest")
        return try withEveryShardLocked { shards, manifests throws(CacheError) in
            let namedPathsSQL = "SELECT path FROM entry WHERE path IS NOT NULL"
            var namedPaths = Set(try cache.read { db in try String.fetchAll(db, sql: namedPathsSQL) })
            for (pool, layout) in manifests {
                namedPaths.formUnion(try DiskCache.using(pool, layout) { try String.fetchAll($0, sql: namedPathsSQL) })
            }
            namedPaths.formUnion(publishedPaths(namedPathsSQL))
            var result = GarbageCollectionResult()
            for path in try files.allFilePaths() where !namedPaths.contains(path) {
                let absolute = layout.absolutePath(relative: path)
                guard let info = files.status(relativePath: path) else { continue }
                let modifiedAt = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                guard modifiedAt < startedAt else { continue }
                do {
                    if try files.removeFile(relativePath: path) { result.removedOrphanFiles.append(absolute) }
                } catch {
                    result.unremovable.append("\(absolute): \(error)")
                }
            }
            for layout in [layout] + shards.map({ CacheLayout(root: self.layout.root, shard: $0) }) {
                let store = layout.shard == nil ? files : CacheFileStore(layout: layout, faults: nil)
                let removed = (try? store.removeAllTemporaryFiles()) ?? []
                result.removedTemporaryFiles += removed.map { layout.tempDirectory + "/" + $0 }
                let left = (try? store.temporaryFileNames()) ?? []
                result.unremovable += left.map { "\(layout.tempDirectory)/\($0): it could not be removed" }
            }
            if !result.removedOrphanFiles.isEmpty || !result.removedTemporaryFiles.isEmpty {
                logger.info("collected garbage", metadata: [
                    "orphans": "\(result.removedOrphanFiles.count)", "temporaryFiles": "\(result.removedTemporaryFiles.count)",
                ])
            }
            return result
        }
    }
}

extension CacheMaintenance {
    /// The paths every published snapshot names; one that cannot be read names none (no origin serves from it either).
    private func publishedPaths(_ sql: String) -> Set<String> {
        let directory = PublishedManifest(root: layout.root).directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var paths = Set<String>()
        for name in names where PublishedManifest.sequence(ofSnapshot: name) != nil {
            let path = directory + "/" + name
            do {
                let pool = try Manifest.openSnapshot(path: path)
                defer { try? pool.close() }
                paths.formUnion(try pool.read { try String.fetchAll($0, sql: sql) })
            } catch {
                logger.warning("a published manifest cannot be read", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        return paths
    }
}

/// What `CacheMaintenance.collectGarbage()` removed, as absolute paths.
public struct GarbageCollectionResult: Sendable, Hashable {
    public var removedOrphanFiles: [String] = []
    public var removedTemporaryFiles: [String] = []
    /// With the reason (a directory or device where a file belongs).
    public var unremovable: [String] = []
}
