/// How a record's `peakBytes` were measured.
public enum PeakMethod: String, Sendable, Codable, Hashable, CaseIterable {
    /// Resident set growth: the kernel's peak RSS (`VmHWM`) is reset through
    /// `/proc/self/clear_refs`, and the peak is `VmHWM` after the strategy ran
    /// minus `VmRSS` before it. Counts every page the process touched meanwhile:
    /// pixel buffers, decoder scratch (libjpeg, libpng, libwebp), libvips'
    /// buffers and anything else allocated at the time. Misses growth inside
    /// pages already resident (sub-page heap noise).
    case residentHighWaterMark = "vmhwm"
    /// In a fresh process that runs only this strategy on this image
    /// (`PeakIsolation.childProcess`), the larger of two measured lower
    /// bounds: resident growth as above, and libvips' tracked allocations
    /// (its high-water mark minus what was allocated before). Resident growth
    /// misses small buffers that land on heap pages already resident, which
    /// makes it jitter by about 128 KiB between identical runs; the tracked
    /// count is exact for pixel and region buffers but never sees codec scratch
    /// (libjpeg's, libpng's). In a fresh process the tracked high-water mark
    /// starts at nothing, so it is the strategy's own.
    case freshProcess = "fresh-process"
    /// Fallback when `/proc/self/clear_refs` is not writable: libvips' tracked
    /// pixel memory. If libvips' process-wide high-water mark rose during the
    /// strategy, the peak is exact for tracked memory; otherwise it is a lower
    /// bound (tracked bytes after minus before). Never sees decoder scratch
    /// allocated by the codec libraries themselves.
    case vipsTracked = "vips-tracked"

    /// A sentence for reports.
    public var explanation: String {
        switch self {
        case .residentHighWaterMark:
            return "peak resident memory (VmHWM reset through /proc/self/clear_refs) minus resident memory (VmRSS) before the strategy ran"
        case .freshProcess:
            return "in a fresh process that ran only this strategy on this image, the larger of its resident-memory growth (VmHWM reset through /proc/self/clear_refs, minus VmRSS before the strategy ran) and libvips' tracked-allocation growth (high-water mark minus bytes allocated before)"
        case .vipsTracked:
            return "libvips' tracked pixel memory (a lower bound: codec scratch buffers are not tracked)"
        }
    }
}
