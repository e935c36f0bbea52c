/// What the cache holds for one (URL, variant): the manifest row (read as `entry.etag`...), the file's path,
/// and whether that file was intact when read.
@dynamicMemberLookup
public struct CacheEntry: Sendable, Hashable {
    public var row: ManifestRow
    public var variant: CacheVariant
    /// Absolute path of the file; nil for a failure-only entry.
    var absolutePath: String?
    /// A regular file of exactly `outputBytes` when read; false after damage or a crash between rename and row update.
    public var fileIsPresent: Bool

    public subscript<Value>(dynamicMember column: KeyPath<ManifestRow, Value>) -> Value { row[keyPath: column] }

    /// The pipeline skips fresh entries entirely and revalidates the rest.
    public func isFresh(now: Double) -> Bool {
        fileIsPresent && (row.expiresAt ?? -.infinity) > now
    }
}
