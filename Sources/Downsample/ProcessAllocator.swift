import CWarmVips

/// The C allocator settings memory measurement relies on (glibc; no-ops
/// elsewhere). Lives here because Downsample owns the C shim.
public enum ProcessAllocator {
    /// Fixes the mmap threshold at `bytes`, turning off glibc's dynamic
    /// threshold, so that every buffer at least that large is its own mapping:
    /// resident exactly while alive. False when unsupported.
    @discardableResult
    public static func fixMmapThreshold(bytes: Int) -> Bool {
        warm_malloc_set_mmap_threshold(bytes) == 1
    }

    /// Limits the C allocator to `count` arenas (glibc `M_ARENA_MAX`): with
    /// one, every thread's small allocations come from the heap that
    /// `trim()` returns to the kernel. Threads that already have an arena
    /// keep using one of the existing arenas. False when unsupported.
    @discardableResult
    public static func limitArenas(to count: Int) -> Bool {
        warm_malloc_set_arena_max(Int32(clamping: count)) == 1
    }

    /// Returns free heap memory to the kernel (`malloc_trim(0)`).
    public static func trim() {
        _ = warm_malloc_trim()
    }
}
