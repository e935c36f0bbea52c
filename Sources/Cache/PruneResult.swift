/// What one prune pass removed.
public struct PruneResult: Sendable, Hashable {
    /// Rows removed (with their files, where they had one).
    public var removedCount: Int
    /// Sum of the removed rows' `outputBytes`.
    public var removedBytes: Int
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them, `gc` removes them).
    public var unremovedFileCount: Int

    public init(removedCount: Int = 0, removedBytes: Int = 0, unremovedFileCount: Int = 0) {
        self.removedCount = removedCount
        self.removedBytes = removedBytes
        self.unremovedFileCount = unremovedFileCount
    }
}
