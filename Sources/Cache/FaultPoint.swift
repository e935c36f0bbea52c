/// Places in the store where tests inject a failure (an errno) to check that
/// a failing disk or a crash at that instant leaves the cache consistent.
enum FaultPoint: Sendable, Hashable {
    /// Writing the temp file (a full disk shows up here).
    case temporaryWrite
    /// After the rename into place, before the manifest row is written.
    case afterRename
    /// After eviction committed the row deletions, before the files are removed.
    case afterEvictedRowsDeleted
}

/// Returns the errno a step should fail with, or nil to let it run.
typealias FaultInjector = @Sendable (FaultPoint) -> Int32?
