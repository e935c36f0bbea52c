import Foundation
import GRDB

/// One row of the manifest's `entry` table: what the cache knows about one
/// (canonical URL, variant) pair. `path` is nil when the row only records a
/// failure. Times are seconds since 1970 (UTC), as `Double`.
struct ManifestRow: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "entry"

    var url: String
    var variant: String
    /// Stored as a JSON array (GRDB encodes nested Codable values as JSON text).
    var productIds: [Int]
    var path: String?
    var etag: String?
    var lastModified: String?
    var sourceBytes: Int?
    var sourceFormat: String?
    var sourceWidth: Int?
    var sourceHeight: Int?
    var outputBytes: Int?
    var outputWidth: Int?
    var outputHeight: Int?
    var fetchedAt: Double?
    var expiresAt: Double?
    var lastAccessAt: Double
    var lastError: String?
    var failedAt: Double?
    /// When a run that crawled the whole product list last saw a product
    /// pointing at `url` (or stored it); `prune(listedBefore:)` removes rows
    /// not listed since a cutoff.
    var lastListedAt: Double = 0
    /// The source image's placeholder (the same on every variant of the URL);
    /// nil before v3 and until a run decodes the image again.
    var thumbHash: Data? = nil
    /// `#rrggbb`.
    var averageColor: String? = nil

    enum Columns: String, ColumnExpression, CaseIterable {
        case url, variant, productIds, path, etag, lastModified, sourceBytes, sourceFormat, sourceWidth,
             sourceHeight, outputBytes, outputWidth, outputHeight, fetchedAt, expiresAt, lastAccessAt,
             lastError, failedAt, lastListedAt, thumbHash, averageColor
    }

    static func key(url: CanonicalURL, variant: CacheVariant) -> [String: any DatabaseValueConvertible] {
        [Columns.url.rawValue: url.text, Columns.variant.rawValue: variant.name]
    }

    // The per-image statements, prepared once per connection: building them
    // through the query interface each time (SQL generation, the authorizer,
    // `sqlite3_prepare`) was most of the manifest's cost in a `warm run`
    // (`perf record`, bench/findings.md section 9).

    /// The row of one key, or nil.
    static func fetchOne(_ db: Database, url: CanonicalURL, variant: CacheVariant) throws -> ManifestRow? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM entry WHERE url = ? AND variant = ?"),
                     arguments: [url.text, variant.name])
    }

    /// Every row of one URL, by variant name.
    static func fetchAll(_ db: Database, url: CanonicalURL) throws -> [ManifestRow] {
        try fetchAll(db.cachedStatement(sql: "SELECT * FROM entry WHERE url = ? ORDER BY variant"),
                     arguments: [url.text])
    }

    /// Every row of `urls`, by URL and variant name: one statement per 500
    /// URLs (SQLite bounds a statement's parameters).
    static func fetchAll(_ db: Database, urls: [CanonicalURL]) throws -> [ManifestRow] {
        var rows: [ManifestRow] = []
        for start in stride(from: 0, to: urls.count, by: 500) {
            let chunk = urls[start..<min(start + 500, urls.count)]
            let marks = repeatElement("?", count: chunk.count).joined(separator: ",")
            rows += try fetchAll(db, sql: "SELECT * FROM entry WHERE url IN (\(marks)) ORDER BY url, variant",
                                 arguments: StatementArguments(chunk.map(\.text)))
        }
        return rows
    }

    /// Inserts the row, or sets every column of the row with its key: what
    /// `save(_:)` leaves in the table, in one statement prepared once per
    /// connection. `save` tried an UPDATE, then an INSERT, each built through
    /// the query interface, with `productIds` encoded by a `JSONEncoder`: 478
    /// of the parent's 6,494 samples in `perf record` of a `warm run`.
    func upsert(_ db: Database) throws {
        try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: StatementArguments(Columns.allCases.map(value(of:))))
    }

    private static let upsertSQL: String = {
        let names = Columns.allCases.map(\.rawValue)
        let updates = Columns.allCases.filter { $0 != .url && $0 != .variant }.map { "\($0.rawValue) = excluded.\($0.rawValue)" }
        return "INSERT INTO entry (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", "))) "
            + "ON CONFLICT(url, variant) DO UPDATE SET \(updates.joined(separator: ", "))"
    }()

    /// The column's value as the table stores it (`productIds` as the JSON
    /// array text GRDB's Codable encoding writes, e.g. `[3,7]`).
    private func value(of column: Columns) -> (any DatabaseValueConvertible)? {
        switch column {
        case .url: url
        case .variant: variant
        case .productIds: "[" + productIds.map(String.init).joined(separator: ",") + "]"
        case .path: path
        case .etag: etag
        case .lastModified: lastModified
        case .sourceBytes: sourceBytes
        case .sourceFormat: sourceFormat
        case .sourceWidth: sourceWidth
        case .sourceHeight: sourceHeight
        case .outputBytes: outputBytes
        case .outputWidth: outputWidth
        case .outputHeight: outputHeight
        case .fetchedAt: fetchedAt
        case .expiresAt: expiresAt
        case .lastAccessAt: lastAccessAt
        case .lastError: lastError
        case .failedAt: failedAt
        case .lastListedAt: lastListedAt
        case .thumbHash: thumbHash
        case .averageColor: averageColor
        }
    }
}
