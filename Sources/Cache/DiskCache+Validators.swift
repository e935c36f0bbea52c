import Foundation
import GRDB
import WarmSupport

extension DiskCache {
    /// Records the validators of files stored before v4 (or whose row lost them): each file is read and hashed once,
    /// here, so nothing else has to. A missing file, or one whose size is not the row's, stays without: the origin
    /// then hashes what it sends and `verify` reports it. Returns the number of rows filled. Memory: one file.
    func fillMissingValidators(batchSize: Int = 1_000) throws(CacheError) -> Int {
        var filled = 0
        try Self.forEachBatch(of: pool, layout: layout, where: "path IS NOT NULL AND sha256 IS NULL",
                              batchSize: batchSize) { rows throws(CacheError) in
            var found: [(row: ManifestRow, validators: FileValidators)] = []
            for row in rows {
                guard let path = row.path, let file = try? files.readFile(relativePath: path),
                      file.info.byteCount == row.outputBytes else { continue }
                let digest = file.bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
                found.append((row, FileValidators(sha256Hex: digest, info: file.info)))
            }
            guard !found.isEmpty else { return }
            filled += try write { db in
                var changed = 0
                try db.inTransaction {
                    for (row, validators) in found {
                        // Only if no store replaced the row meanwhile: a store writes its own validators.
                        try db.execute(sql: """
                            UPDATE entry SET sha256 = ?, fileInode = ?, fileModifiedAtNanoseconds = ?
                            WHERE url = ? AND variant = ? AND path = ? AND outputBytes = ? AND sha256 IS NULL
                            """, arguments: [validators.sha256Hex, Int64(bitPattern: validators.inode),
                                             validators.modifiedAtNanoseconds, row.url, row.variant, row.path,
                                             validators.byteCount])
                        changed += db.changesCount
                    }
                    return .commit
                }
                return changed
            }
        }
        return filled
    }
}
