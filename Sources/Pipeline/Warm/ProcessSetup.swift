import Downsample

/// The one place a run sets up its process: the C allocator. Called by the
/// composition root (`WarmDependencies.live`) before the run's threads start
/// allocating (threads that already have an arena keep it).
enum ProcessSetup {
    static func prepare(for configuration: WarmConfiguration) {
        // Large buffers (downloaded images, bitmaps) come and go by the thousand:
        // with glibc's defaults their freed memory stays resident in per-thread
        // arenas and the peak creeps up with the length of the run. Mapping
        // anything over 256 KiB on its own and capping the arenas at 2 returns
        // it on free, so memory follows the work in flight, not the catalog
        // (measured: peak RSS over 1,336 products 519 MB -> 206 MB; commit 0ab0fc7).
        ProcessAllocator.fixMmapThreshold(bytes: 256 * 1024)
        ProcessAllocator.limitArenas(to: 2)
    }
}
