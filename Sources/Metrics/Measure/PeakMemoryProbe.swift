import Downsample
#if canImport(Glibc)
import Glibc
#endif

/// Measures the most memory the process gains during one span of work (one
/// strategy decoding one image), by the best method this machine allows.
///
/// Only meaningful while nothing else in the process allocates: the measurer
/// holds `MeasurementGate`'s exclusive permit around it. Costs per span: a
/// wait of at least 5 ms for libvips to settle, a `malloc_trim`, a write to
/// `/proc/self/clear_refs` and two small `/proc/self/status` reads.
struct PeakMemoryProbe: ~Copyable {
    /// `.forkedProcess` turns into `.forkedProcessHighWaterMark` at `start()`
    /// when the child's span cannot be watched (`PeakWatch`).
    private(set) var method: PeakMethod
    /// The span is read by the measuring process's watch, not by `VmHWM`.
    private var watched = false
    private let buffer: UnsafeMutableRawBufferPointer
    private var rssBefore = 0
    private var trackedBefore = 0
    private var trackedHighWaterBefore = 0

    /// Uses `VmHWM` when `/proc/self/clear_refs` is writable and `preferred`
    /// allows it, libvips' tracked memory otherwise.
    init(preferred: PeakMethod = .residentHighWaterMark) {
        ProcessMemory.configureAllocator()
        buffer = .allocate(byteCount: 8192, alignment: 8)
        let canReset = preferred != .vipsTracked && ProcessMemory.resetPeak()
            && ProcessMemory.resident(using: buffer) != nil
        method = canReset ? (preferred.runsInItsOwnProcess ? preferred : .residentHighWaterMark) : .vipsTracked
    }

    deinit { buffer.deallocate() }

    /// Starts a span: waits for libvips' worker threads to finish releasing
    /// the previous span's buffers, returns freed heap to the kernel and
    /// resets the peak.
    mutating func start() {
        // A fresh or forked process has run no span before this one: nothing to settle.
        if !method.runsInItsOwnProcess { Self.waitForLibvipsToSettle() }
        ProcessMemory.trim()
        trackedBefore = VipsRuntime.trackedBytes
        trackedHighWaterBefore = VipsRuntime.trackedBytesHighWater
        if method == .forkedProcess {
            if let resident = PeakWatch.startSpan() {
                watched = true
                rssBefore = resident
                return
            }
            method = .forkedProcessHighWaterMark
        }
        if method != .vipsTracked {
            _ = ProcessMemory.resetPeak()
            rssBefore = ProcessMemory.resident(using: buffer)?.rssBytes ?? 0
        }
    }

    /// libvips' workers free their region buffers a few milliseconds after
    /// the operation that used them has returned. Freed inside the next span,
    /// they would offset its growth and hide part of its peak (measured: a
    /// 4 MB buffer released at the start of a thumbnail decode). Waits until
    /// libvips' tracked memory has not changed for 5 ms, at most 200 ms.
    static func waitForLibvipsToSettle() {
        let quietPolls = 5, maximumPolls = 200
        var last = VipsRuntime.trackedBytes, unchanged = 0
        for _ in 0..<maximumPolls where unchanged < quietPolls {
            usleep(1000)
            let now = VipsRuntime.trackedBytes
            unchanged = now == last ? unchanged + 1 : 0
            last = now
        }
    }

    /// Ends the span: the peak gain since `start()`, in bytes (never negative).
    /// Call it while the span's output is still alive.
    func peakBytes() -> Int {
        if watched, let peak = PeakWatch.endSpan() { return max(0, peak - rssBefore) }
        switch method {
        case .residentHighWaterMark, .freshProcess, .forkedProcess, .forkedProcessHighWaterMark:
            return residentGrowth()
        case .vipsTracked:
            return trackedGrowth()
        }
    }

    private func residentGrowth() -> Int {
        let peak = ProcessMemory.resident(using: buffer)?.peakBytes ?? rssBefore
        return max(0, peak - rssBefore)
    }

    /// Exact when libvips' process-wide high-water mark rose during the span,
    /// a lower bound (bytes after minus before) otherwise.
    private func trackedGrowth() -> Int {
        let highWater = VipsRuntime.trackedBytesHighWater
        let after = VipsRuntime.trackedBytes
        let peak = highWater > trackedHighWaterBefore ? highWater : after
        return max(0, peak - trackedBefore)
    }
}
