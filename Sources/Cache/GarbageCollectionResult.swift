/// What `DiskCache.collectGarbage()` removed, as absolute paths.
public struct GarbageCollectionResult: Sendable, Hashable {
    public var removedOrphanFiles: [String] = []
    public var removedTemporaryFiles: [String] = []
    /// With the reason (a directory or device where a file belongs).
    public var unremovable: [String] = []
}
