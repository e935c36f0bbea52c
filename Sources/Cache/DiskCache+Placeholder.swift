import Foundation
import GRDB

extension DiskCache {
    /// The bytes of an entry's file, read without following links; nil for a failure-only entry or a file whose
    /// size is not the row's (damaged: `verify` reports it, the next download replaces it).
    public func fileBytes(of entry: CacheEntry) throws(CacheError) -> Data? {
        guard let path = entry.path, let expected = entry.outputBytes else { return nil }
        let (bytes, info) = try files.readFile(relativePath: path, maxBytes: expected)
        return info.byteCount == expected ? Data(bytes) : nil
    }

    /// For images cached before placeholders existed: stores `thumbHash` and `averageColor` on the URL's rows that
    /// have a file and no placeholder yet (a row that has one keeps it). Returns the rows changed.
    @discardableResult
    public func fillMissingPlaceholder(url canonical: CanonicalURL, thumbHash: Data,
                                       averageColor: String) throws(CacheError) -> Int {
        try write { db in
            try db.execute(sql: """
                UPDATE entry SET thumbHash = ?, averageColor = ?
                WHERE url = ? AND path IS NOT NULL AND thumbHash IS NULL
                """, arguments: [thumbHash, averageColor, canonical.text])
            return db.changesCount
        }
    }
}
