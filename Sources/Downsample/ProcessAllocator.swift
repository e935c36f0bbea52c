import CWarmVips

/// The glibc allocator settings memory measurement relies on; here because Downsample owns the C shim.
public enum ProcessAllocator {
    /// No dynamic threshold: every buffer that large is its own mapping, resident exactly while alive.
    @discardableResult
    public static func fixMmapThreshold(bytes: Int) -> Bool {
        warm_malloc_set_mmap_threshold(bytes) == 1
    }

    /// With one arena every thread's small allocations come from the heap `trim()` returns to the kernel;
    /// threads that already have an arena keep one of the existing ones.
    @discardableResult
    public static func limitArenas(to count: Int) -> Bool {
        warm_malloc_set_arena_max(Int32(clamping: count)) == 1
    }

    public static func trim() {
        _ = warm_malloc_trim()
    }
}
