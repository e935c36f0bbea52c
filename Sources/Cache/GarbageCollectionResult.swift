/// What `DiskCache.collectGarbage()` removed, as absolute paths.
public struct GarbageCollectionResult: Sendable, Hashable {
    /// Files under `v1/` that no manifest (the tree's or a shard's) names.
    public var removedOrphanFiles: [String] = []
    /// Leftover files in `tmp/` and in every shard's `tmp/`.
    public var removedTemporaryFiles: [String] = []
    /// Stray paths that could not be removed (a directory or device where a file belongs), with the reason.
    public var unremovable: [String] = []
}
