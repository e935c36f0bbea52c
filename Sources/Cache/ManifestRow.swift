import Foundation
import GRDB

/// One row of the `entry` table (columns: LAYOUT.md). `path` is nil when the row only records a failure;
/// times are seconds since 1970.
public struct ManifestRow: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "entry"

    public var url: String
    public var variant: String
    /// A JSON array in the table (GRDB's encoding of nested Codable values).
    public var productIds: [Int]
    var path: String?
    public var etag: String?
    public var lastModified: String?
    public var sourceBytes: Int?
    public var sourceFormat: String?
    public var sourceWidth: Int?
    public var sourceHeight: Int?
    public var outputBytes: Int?
    public var outputWidth: Int?
    public var outputHeight: Int?
    var fetchedAt: Double?
    public var expiresAt: Double?
    var lastAccessAt: Double
    var lastError: String?
    var failedAt: Double?
    var lastListedAt: Double = 0
    public var thumbHash: Data? = nil
    var averageColor: String? = nil
    /// The file's validators (`FileValidators`), written with the row that names the file; the byte count is
    /// `outputBytes`. NULL in rows from before v4 until `DiskCache.open` fills them.
    var sha256: String? = nil
    var fileInode: Int? = nil
    var fileModifiedAtNanoseconds: Int? = nil
    /// Where product details show the image, as the last run that read them saw it (v5; empty: no carousel).
    var carousel: [CarouselPlacement] = []

    public enum Columns: String, ColumnExpression, CaseIterable {
        case url, variant, productIds, path, etag, lastModified, sourceBytes, sourceFormat, sourceWidth,
             sourceHeight, outputBytes, outputWidth, outputHeight, fetchedAt, expiresAt, lastAccessAt,
             lastError, failedAt, lastListedAt, thumbHash, averageColor, sha256, fileInode, fileModifiedAtNanoseconds, carousel
    }

    /// Sets the validator columns.
    mutating func record(_ validators: FileValidators) {
        sha256 = validators.sha256Hex
        outputBytes = validators.byteCount
        fileInode = Int(Int64(bitPattern: validators.inode))
        fileModifiedAtNanoseconds = Int(validators.modifiedAtNanoseconds)
    }

    var key: [String: any DatabaseValueConvertible] { [Columns.url.rawValue: url, Columns.variant.rawValue: variant] }

    // The per-image statements are prepared once per connection (bench/findings.md sections 9 and 10).

    static func fetchOne(_ db: Database, url: CanonicalURL, variant: CacheVariant) throws -> ManifestRow? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM entry WHERE url = ? AND variant = ?"),
                     arguments: [url.text, variant.name])
    }

    static func fetchAll(_ db: Database, url: CanonicalURL) throws -> [ManifestRow] {
        try fetchAll(db.cachedStatement(sql: "SELECT * FROM entry WHERE url = ? ORDER BY variant"),
                     arguments: [url.text])
    }

    /// One statement per 500 URLs: SQLite bounds a statement's parameters.
    static func fetchAll(_ db: Database, urls: [CanonicalURL]) throws -> [ManifestRow] {
        var rows: [ManifestRow] = []
        for start in stride(from: 0, to: urls.count, by: 500) {
            let chunk = urls[start..<min(start + 500, urls.count)].map(\.text)
            rows += try filter(chunk.contains(Columns.url)).order(Columns.url, Columns.variant).fetchAll(db)
        }
        return rows
    }

    /// What `save(_:)` does, in one statement prepared once per connection.
    func upsert(_ db: Database) throws {
        try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: StatementArguments(columnValues))
    }

    private static let upsertSQL: String = {
        let names = Columns.allCases.map(\.rawValue)
        let updates = Columns.allCases.filter { $0 != .url && $0 != .variant }.map { "\($0.rawValue) = excluded.\($0.rawValue)" }
        return "INSERT INTO entry (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", "))) "
            + "ON CONFLICT(url, variant) DO UPDATE SET \(updates.joined(separator: ", "))"
    }()

    /// In `Columns` order, as the table stores them (`productIds` as GRDB's JSON text, e.g. `[3,7]`).
    private var columnValues: [(any DatabaseValueConvertible)?] {
        [url, variant, "[" + productIds.map(String.init).joined(separator: ",") + "]", path, etag, lastModified,
         sourceBytes, sourceFormat, sourceWidth, sourceHeight, outputBytes, outputWidth, outputHeight, fetchedAt,
         expiresAt, lastAccessAt, lastError, failedAt, lastListedAt, thumbHash, averageColor, sha256, fileInode,
         fileModifiedAtNanoseconds, CarouselPlacement.json(carousel)]
    }
}

/// A key a shard pruned; `mergeShards` removes it from the tree's manifest (unless downloaded after `prunedAt`), then
/// forgets it, so a merge never brings a pruned row back and the table stays small.
struct PrunedKey: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pruned"

    var url: String
    var variant: String
    var prunedAt: Double

    /// On a store or failure record of the key.
    static func delete(_ db: Database, url: CanonicalURL, variant: CacheVariant) throws {
        try db.cachedStatement(sql: "DELETE FROM pruned WHERE url = ? AND variant = ?")
            .execute(arguments: [url.text, variant.name])
    }
}
