/// Places where tests inject a failure (an errno) to check that a failing disk
/// or a crash at that instant leaves the cache consistent; public so that
/// `warm run` can rehearse a crash at one of them (`WARM_CRASH_REHEARSAL`).
public enum FaultPoint: String, Sendable, Hashable, CaseIterable {
    /// Writing the temp file (a full disk shows up here).
    case temporaryWrite
    /// After the rename into place, before the manifest row is written.
    case afterRename
    /// After eviction committed the row deletions, before the files are removed.
    case afterEvictedRowsDeleted
    /// After pruning committed the row deletions, before the files are removed.
    case afterPrunedRowsDeleted
}

/// Returns the errno a step should fail with, or nil to let it run.
public typealias FaultInjector = @Sendable (FaultPoint) -> Int32?
