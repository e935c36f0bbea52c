import CWarmVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The exact peak of a measuring child's resident memory, read by the
/// measuring process that forked it (`MeasuringServer`), in place of the
/// kernel's `VmHWM`.
///
/// Why: Linux counts a process's resident pages in per-CPU counters and
/// records `VmHWM` from their approximate sum, which misses up to 31 pages
/// per CPU and counter (about 124 KiB each) by an amount that depends on the
/// CPUs the process's threads ran on. Measured in a C loop that maps,
/// touches and unmaps 3,001 KiB on one thread: `VmHWM` growth 155, 283 or
/// 355 KiB above it from run to run, the exact reading 355 every time. On the
/// seeds' images that error is as large as renderer's canvas (234-351 KiB),
/// so renderer could read below naive.
///
/// How (`WarmPeakWatch.c`): when its span starts the child installs a
/// seccomp filter that hands every call able to lower its resident memory
/// (munmap, mremap, madvise, fixed mmap) to the measuring process before it
/// runs; that process reads the child's exact `VmRSS` and keeps the highest.
/// glibc does not lower the heap's break during the span (its trim threshold
/// is set to the maximum; measured: peaks within 16 KiB of trimmed ones), so
/// brk needs no watching. Resident memory only grows between two watched
/// calls, so the highest value, with the one at the span's end, is the peak.
/// Cost: one round trip through the measuring process per watched call (a
/// seeds image's decode makes 5-30).
enum PeakWatch {
    /// Set to 0 in the measuring process's environment, children measure with
    /// `VmHWM` instead (`PeakMethod.forkedProcessHighWaterMark`): for comparing the two.
    static let switchVariable = "WARM_MEASURE_PEAK_WATCH"

    static let isEnabled = ProcessInfo.processInfo.environment[switchVariable] != "0"

    /// A socket pair made before the fork: the child sends its watch over it.
    struct Channel {
        private let parentEnd: Int32
        private let childEnd: Int32

        /// Nil when no socket pair can be made (the child then uses `VmHWM`).
        static func make() -> Channel? {
            var ends: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
                return nil
            }
            return Channel(parentEnd: ends[0], childEnd: ends[1])
        }

        /// In the forked child: the probe's spans will be watched over this channel.
        func becomeChildSide() {
            _ = Glibc.close(parentEnd)
            warm_peak_watch_set_channel(childEnd)
        }

        /// In the measuring process: serves the child's watch until it exited
        /// and returns what it wrote to `reply`; nil when the reply was too long.
        func serve(child pid: pid_t, reply: Int32) -> Data? {
            _ = Glibc.close(childEnd)
            defer { _ = Glibc.close(parentEnd) }
            let capacity = 1 << 20
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            let length = warm_peak_watch_serve(parentEnd, pid, reply, buffer, capacity, nil)
            guard length >= 0 else { return nil }
            return Data(bytes: buffer, count: length)
        }

        /// When the fork failed.
        func close() {
            _ = Glibc.close(parentEnd)
            _ = Glibc.close(childEnd)
        }
    }

    /// In a forked child: starts a watched span. The exact resident bytes now,
    /// or nil when this process is not watched (no channel, or the kernel
    /// refused the filter).
    static func startSpan() -> Int? {
        let kib = warm_peak_watch_start()
        return kib >= 0 ? kib * 1024 : nil
    }

    /// Ends the span: the exact peak resident bytes since `startSpan()`, nil on failure.
    static func endSpan() -> Int? {
        let kib = warm_peak_watch_end()
        return kib >= 0 ? kib * 1024 : nil
    }
}
