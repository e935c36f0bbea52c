/// What one eviction pass removed.
public struct EvictionResult: Sendable, Hashable {
    public var removedCount: Int
    public var removedBytes: Int
    public var remainingBytes: Int
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them).
    public var unremovedFileCount = 0
}
