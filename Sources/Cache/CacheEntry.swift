/// What the cache holds for one (URL, variant): the manifest row (its columns
/// read through `entry.etag`, `entry.outputBytes`...) plus where its file is and
/// whether that file was found intact when the entry was read.
@dynamicMemberLookup
public struct CacheEntry: Sendable, Hashable {
    public var row: ManifestRow
    public var variant: CacheVariant
    /// Absolute path of the file; nil for a failure-only entry.
    public var absolutePath: String?
    /// True when, as this entry was read, its file existed as a regular file of
    /// exactly `outputBytes` bytes. False after someone deleted or damaged it,
    /// or after a crash between a file's rename and its row update.
    public var fileIsPresent: Bool

    public subscript<Value>(dynamicMember column: KeyPath<ManifestRow, Value>) -> Value { row[keyPath: column] }

    /// Fresh: a usable file that has not expired. The pipeline skips fresh
    /// entries entirely and revalidates the rest.
    public func isFresh(now: Double) -> Bool {
        fileIsPresent && (row.expiresAt ?? -.infinity) > now
    }

    /// A conditional request is only safe when a 304 would leave a usable file behind.
    public var canRevalidate: Bool {
        fileIsPresent && (row.etag != nil || row.lastModified != nil)
    }
}
