/// What one prune pass removed.
public struct PruneResult: Sendable, Hashable {
    public var removedCount = 0
    public var removedBytes = 0
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them, `gc` removes them).
    public var unremovedFileCount = 0

    public init() {}
}
