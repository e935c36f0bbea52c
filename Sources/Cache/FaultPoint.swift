/// Where tests inject a failure (an errno) to check that a failing disk or crash there leaves the cache consistent;
/// public so `warm run` can rehearse a crash (`WARM_CRASH_REHEARSAL`).
public enum FaultPoint: String, Sendable, Hashable, CaseIterable {
    /// A full disk shows up here.
    case temporaryWrite
    /// The rename into `v1/` (a new directory level needs a block).
    case install
    /// Every write to the manifest (a row, an access, a listing, a deletion): SQLite's `SQLITE_FULL`.
    case manifestWrite
    /// The run's summary, `last-run.json` (checked by `SummaryFile`, not the cache).
    case summaryWrite
    /// Before the manifest row is written.
    case afterRename
    /// After the row deletions committed, before the files are removed.
    case afterEvictedRowsDeleted
    case afterPrunedRowsDeleted
}

/// The errno a step should fail with, or nil to let it run.
public typealias FaultInjector = @Sendable (FaultPoint) -> Int32?
