/// What one eviction pass removed.
public struct EvictionResult: Sendable, Hashable {
    /// Entries whose row and file were removed.
    public var removedCount: Int
    /// Sum of the removed entries' `outputBytes`.
    public var removedBytes: Int
    /// Sum of `outputBytes` over the entries that remain.
    public var remainingBytes: Int
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them).
    public var unremovedFileCount = 0
}
