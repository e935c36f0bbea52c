/// How a record's `peakBytes` were measured.
public enum PeakMethod: String, Sendable, Codable, Hashable, CaseIterable {
    /// Resident set growth: the kernel's peak RSS (`VmHWM`) is reset through
    /// `/proc/self/clear_refs`, and the peak is `VmHWM` after the strategy ran
    /// minus `VmRSS` before it. Counts every page the process touched meanwhile:
    /// pixel buffers, decoder scratch (libjpeg, libpng, libwebp), libvips'
    /// buffers and anything else allocated at the time. Misses growth inside
    /// pages already resident (sub-page heap noise).
    case residentHighWaterMark = "vmhwm"
    /// The same growth, in a fresh process that runs only this strategy on
    /// this image (`PeakIsolation.childProcess`): glibc's allocator settings
    /// hold from its first allocation (`GLIBC_TUNABLES`) and every page of
    /// its mapped files is made resident before the strategy starts. Nothing
    /// another image or strategy left behind is in the process.
    case freshProcess = "fresh-process"
    /// The same growth, in a child forked for this one strategy run by a
    /// measuring process (`MeasuringServer`) that has loaded the code,
    /// started libvips (no threads) and made its mapped files resident, but
    /// never decoded anything: each child starts from the same state and
    /// address layout, with glibc's measuring tunables set at the measuring
    /// process's start. Nothing another image or strategy left behind is in
    /// the child. The peak is exact: the measuring process reads the child's
    /// `VmRSS` before every call that can lower it (`PeakWatch`), where
    /// `VmHWM` comes from per-CPU counters that can miss a few hundred KiB.
    case forkedProcess = "forked-process"
    /// `forkedProcess` where the child's span could not be watched (the
    /// kernel refused the seccomp filter): `VmHWM` as in `freshProcess`.
    case forkedProcessHighWaterMark = "forked-process-vmhwm"
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
            return "in a fresh process that ran only this strategy on this image, its peak resident memory (VmHWM reset through /proc/self/clear_refs just before the strategy) minus its resident memory (VmRSS) then"
        case .forkedProcess:
            return "in a child process forked for this one strategy run from a measuring process that has loaded the code and started libvips but never decoded, the child's highest resident memory while the strategy ran minus its resident memory (VmRSS) before; the measuring process reads the child's exact VmRSS before every call that can lower it (munmap, mremap, releasing madvise, fixed mmap: a seccomp filter hands them over; glibc does not trim the heap meanwhile) and at the end, since the kernel's VmHWM is taken from per-CPU counters that can miss up to 31 pages per CPU"
        case .forkedProcessHighWaterMark:
            return "in a child process forked for this one strategy run from a measuring process that has loaded the code and started libvips but never decoded, the child's peak resident memory (VmHWM reset through /proc/self/clear_refs just before the strategy; the exact watch was refused) minus its resident memory (VmRSS) then"
        case .vipsTracked:
            return "libvips' tracked pixel memory (a lower bound: codec scratch buffers are not tracked)"
        }
    }

    /// The span runs in a process that ran no span before it (fresh or
    /// forked for this one run): nothing of an earlier decode to settle.
    var runsInItsOwnProcess: Bool {
        self == .freshProcess || self == .forkedProcess || self == .forkedProcessHighWaterMark
    }
}
