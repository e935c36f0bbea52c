/// What one prune pass removed.
public struct PruneResult: Sendable, Hashable {
    /// Rows removed (with their files, where they had one).
    public var removedCount = 0
    /// Sum of the removed rows' `outputBytes`.
    public var removedBytes = 0
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them, `gc` removes them).
    public var unremovedFileCount = 0

    public init() {}
}
