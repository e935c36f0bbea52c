import ChildProcesses
import Downsample
import Foundation
import Synchronization
import WarmSupport

/// Measures one image with each decode strategy, one strategy at a time:
/// retained bytes, transient peak, CPU and wall time, output size, and for
/// renderer and thumbnail their SSIM/PSNR against a Lanczos3 reference.
///
/// Cost per image: two to four full decodes (naive and renderer twice each;
/// once each from `singleRunMinimumPixels` or with exact peaks), three shrink-on-load decodes, one Lanczos3 resample of the naive bitmap, and the SSIM pass. The
/// naive bitmap stays alive until the reference is made (measurements are
/// deltas, so it does not count in the other strategies' peaks). With
/// `PeakIsolation.childProcess`, each of those measured decodes runs in a
/// fresh process (about 60 ms to start each), and this process decodes the
/// image once more per strategy, unmeasured, for SSIM and PSNR.
public struct StrategyMeasurer: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var target: DecodeTarget
        public var limits: DecodeLimits
        /// `.residentHighWaterMark` when the machine allows it (falls back by
        /// itself); `.vipsTracked` forces the fallback.
        public var preferredPeakMethod: PeakMethod
        /// The first image of each format in the process is decoded once,
        /// unmeasured, with every strategy before it is measured, so that
        /// one-time costs (loader code paged in, libvips' worker threads and
        /// their stacks, codec tables) do not land on that image.
        public var warmUp: Bool
        /// Compute SSIM and PSNR (costs a Lanczos3 resample and a pass over the pixels).
        public var quality: Bool
        /// Thumbnail-at-decode is measured this many times and its lowest peak
        /// kept: interference (another thread's allocation, a late free) only
        /// ever adds to a peak, and this is the figure `warm check` guards, so
        /// its noise matters most. Cheap: the thumbnail decode is the fast one.
        public var thumbnailRepeats: Int
        /// Naive and renderer are measured this many times each, lowest peak
        /// kept, for the same reason. In one demo run measured once, 34 of
        /// 1,295 renderer peaks read more than 1% (up to 2.5 MB) below naive's,
        /// although renderer does all naive does plus a canvas: a one-sided
        /// spike in one of the two spans. Costs two more full decodes per image.
        public var fullDecodeRepeats: Int
        /// Naive and renderer runs when peaks are exact (`PeakMethod.forkedProcess`:
        /// the measuring process reads the child's `VmRSS` at every call that can
        /// lower it), instead of `fullDecodeRepeats`; a child that falls back to
        /// `VmHWM` gets the rest of `fullDecodeRepeats` after its first runs.
        /// Why one: the lowest of two runs was kept against noise in the
        /// reading, which exact peaks do not have. Between two whole seeds
        /// catalogs measured with one run each, naive moved by 0.07% (median)
        /// and 0.51% (p95), against 0.06-0.07% and 0.30-0.38% with two runs
        /// below 8 megapixels, and renderer stayed at or above naive on every image.
        public var exactPeakRepeats: Int
        /// Images of at least this many pixels get one run each of naive and
        /// renderer instead of `fullDecodeRepeats` (a close call still gets
        /// `closeCallRepeats` more); nil: every image gets `fullDecodeRepeats`.
        /// Why: a peak's run-to-run spread is about the same in bytes whatever
        /// the image (100-300 KiB), so a second run buys little on a large
        /// image and costs most there. Measured on a 4032x3024 JPEG, three
        /// forked runs each: naive 85,088-85,212 KiB (0.15%), renderer
        /// 85,364-85,652 KiB (0.34%), 0.11 s and 0.45 s a run.
        public var singleRunMinimumPixels: Int?
        /// With child processes: on a close call (`StrategyMeasurer.isCloseCall`:
        /// with exact peaks renderer below naive, with `VmHWM` renderer less
        /// than its canvas, or half of it, above naive), naive and renderer are
        /// each measured this many more times. Measured with `VmHWM` on a
        /// 1170x2532 PNG in eight fresh processes each: naive
        /// 29,412-29,688 KiB, renderer 29,644-29,768 KiB, so two runs each can cross.
        public var closeCallRepeats: Int
        /// In this process, or each strategy in fresh child processes
        /// (`PeakIsolation`; with children, each repeat is a process of its own).
        public var isolation: PeakIsolation

        public init(target: DecodeTarget, limits: DecodeLimits = .default,
                    preferredPeakMethod: PeakMethod = .residentHighWaterMark, warmUp: Bool = true, quality: Bool = true,
                    thumbnailRepeats: Int = 3, fullDecodeRepeats: Int = 2, isolation: PeakIsolation = .inProcess,
                    closeCallRepeats: Int = 3, singleRunMinimumPixels: Int? = Self.defaultSingleRunMinimumPixels,
                    exactPeakRepeats: Int = 1) {
            self.isolation = isolation
            self.singleRunMinimumPixels = singleRunMinimumPixels
            self.closeCallRepeats = max(0, closeCallRepeats)
            self.target = target
            self.limits = limits
            self.preferredPeakMethod = preferredPeakMethod
            self.warmUp = warmUp
            self.quality = quality
            self.thumbnailRepeats = max(1, thumbnailRepeats)
            self.fullDecodeRepeats = max(1, fullDecodeRepeats)
            self.exactPeakRepeats = max(1, exactPeakRepeats)
        }

        /// 8 megapixels: the phone mix's 12-megapixel photos (85 MB naive
        /// peaks) run once, its 3-megapixel screenshots and every image of
        /// the seeds' mix (at most 1.3 megapixels) twice, as before.
        public static let defaultSingleRunMinimumPixels = 8_000_000

        /// How many times `kind` is first measured on an image of `pixels`
        /// pixels (its lowest peak is kept), with peaks read exactly or not.
        func repeats(of kind: StrategyKind, pixels: Int?, exactPeaks: Bool = false) -> Int {
            if kind == .thumbnail { return thumbnailRepeats }
            if getsSingleRuns(pixels: pixels) { return 1 }
            return exactPeaks ? min(exactPeakRepeats, fullDecodeRepeats) : fullDecodeRepeats
        }

        /// Whether naive and renderer are first measured once on an image of `pixels` pixels.
        func getsSingleRuns(pixels: Int?) -> Bool {
            guard let minimum = singleRunMinimumPixels, let pixels else { return false }
            return pixels >= minimum
        }
    }

    public let configuration: Configuration

    /// Sets the process's allocator up for measurement (fixed 64 KiB mmap
    /// threshold, one malloc arena). Call it first thing in a process that
    /// will measure, before threads start allocating: threads that already
    /// have their own arena keep it, and their free pages can hide growth.
    /// Measuring calls it anyway; calling it early only makes it work better.
    public static func prepareProcess() {
        ProcessMemory.configureAllocator()
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Measures `data` while holding `gate`'s exclusive permit, so that no
    /// decode holding a shared permit runs in the process meanwhile. Child
    /// processes are waited for off the cooperative pool.
    public func measure(data: Data, productId: Int?, url: String,
                        gate: MeasurementGate = .shared) async -> ImageMetricsRecord {
        switch configuration.isolation {
        case .measuringProcesses(let pool):
            // Peaks are measured in other processes: this one's decodes do not touch them,
            // so nothing waits on the gate.
            return await measureInMeasuringProcesses(data: data, productId: productId, url: url, pool: pool)
        case .childProcess(let executable):
            return await gate.withExclusivePermit {
                await measureInChildProcesses(data: data, productId: productId, url: url, executable: executable)
            }
        case .inProcess:
            // The decodes block their thread: on the blocking-work pool, not the cooperative pool.
            return await gate.withExclusivePermit {
                await BlockingWork.run { [self] in measureInProcess(data: data, productId: productId, url: url) }
            }
        }
    }

    /// `PeakIsolation.inProcess`, without taking the gate: the caller must
    /// hold the exclusive permit (or know that nothing else decodes in the process).
    func measureInProcess(data: Data, productId: Int?, url: String) -> ImageMetricsRecord {
        var probe = PeakMemoryProbe(preferred: configuration.preferredPeakMethod)
        let (started, opened) = startRecord(data: data, productId: productId, url: url, peakMethod: probe.method)
        var record = started
        guard let source = opened else { return record }

        if configuration.warmUp { warmUpOnce(source) }

        var outputs: [StrategyKind: DecodedImage] = [:]
        for kind in StrategyKind.allCases {
            var result = Self.measureSpan(kind, source, target: configuration.target, probe: &probe)
            for _ in 1..<configuration.repeats(of: kind, pixels: source.header.pixelCount) {
                guard case .success(let (best, _)) = result else { break }
                let again = Self.measureSpan(kind, source, target: configuration.target, probe: &probe)
                if case .success(let (metrics, _)) = again, metrics.hasLowerPeak(than: best) { result = again }
            }
            switch result {
            case .success(let (metrics, image)):
                record.strategies[kind] = metrics
                outputs[kind] = image
            case .failure(let error):
                if record.error == nil {
                    record.error = "the \(kind.rawValue) decode failed: \(error)"
                    record.errorReason = error.reasonCode
                }
            }
        }
        if configuration.quality {
            addQuality(to: &record, outputs: outputs, source: source)
        }
        return record
    }

    /// A close call between naive and renderer, worth `closeCallRepeats`
    /// more runs each (each lowest peak can only fall toward its floor).
    ///
    /// With exact peaks (`PeakMethod.forkedProcess`: the same image reads
    /// within a few KiB run to run), renderer's lowest peak below naive's:
    /// renderer does all naive does plus a canvas, so only that order is
    /// worth checking again. Renderer does end a few KiB under naive plus its
    /// canvas on 86-97 of 1,295 seeds images per run (at most 24-92 KiB), run
    /// after run; the canvas rule below gave those three more runs each for nothing.
    ///
    /// With `VmHWM` (every other method), whose reading misses up to a few
    /// hundred KiB, a lowest renderer peak less than a canvas above naive's
    /// is noise in one of the two. On an image measured once
    /// (`singleRunMinimumPixels`), less than half a canvas: one run's spread
    /// there (100-300 KiB) is as large as a canvas, and what renderer holds
    /// beyond naive and its canvas is about nothing (median 0.03 MB over the
    /// phone mix), so a whole canvas would call about every other such image,
    /// at 1.5 s of extra runs each for a 12-megapixel photo; half a canvas
    /// above naive still keeps renderer above naive, the order the report relies on.
    func isCloseCall(_ record: ImageMetricsRecord) -> Bool {
        guard configuration.closeCallRepeats > 0, let naive = record.strategies[.naive],
              let renderer = record.strategies[.renderer], let naivePeak = naive.peakBytes,
              let rendererPeak = renderer.peakBytes else { return false }
        guard record.peakMethod != .forkedProcess else { return rendererPeak < naivePeak }
        let margin = configuration.getsSingleRuns(pixels: record.pixelCount) ? renderer.retainedBytes / 2 : renderer.retainedBytes
        return rendererPeak < naivePeak + margin
    }

    /// Whether naive and renderer get another `closeCallRepeats` runs each
    /// after `roundsDone` such rounds: a first round on a close call, a
    /// second only if renderer's lowest peak is still below naive's (the
    /// order the report checks on at least 99.9% of images; seen once in 392
    /// phone-mix records, on a 1170x2532 PNG, 4 KiB under after one round),
    /// never a third.
    func needsCloseCallRound(_ record: ImageMetricsRecord, roundsDone: Int) -> Bool {
        switch roundsDone {
        case 0:
            return isCloseCall(record)
        case 1:
            guard configuration.closeCallRepeats > 0, let naivePeak = record.strategies[.naive]?.peakBytes,
                  let rendererPeak = record.strategies[.renderer]?.peakBytes else { return false }
            return rendererPeak < naivePeak
        default:
            return false
        }
    }

    /// The record's image fields, from the header alone (no pixels decoded);
    /// no source when the header is refused (the record then says why).
    func startRecord(data: Data, productId: Int?, url: String, peakMethod: PeakMethod) -> (ImageMetricsRecord, ImageSource?) {
        var record = ImageMetricsRecord(
            productId: productId, url: url, format: ImageFormat.sniff(data), sourceBytes: data.count,
            width: nil, height: nil, orientation: nil, targetLongestSide: configuration.target.longestSide,
            peakMethod: peakMethod)
        do {
            let source = try ImageSource(data: data, limits: configuration.limits)
            record.format = source.header.format
            record.width = source.header.width
            record.height = source.header.height
            record.orientation = source.header.orientation
            return (record, source)
        } catch {
            record.fill(from: error)
            return (record, nil)
        }
    }

    /// Runs one strategy inside a probe span, its output kept alive until the
    /// span is read (as a cache would keep it).
    static func measureSpan(_ kind: StrategyKind, _ source: ImageSource, target: DecodeTarget, probe: inout PeakMemoryProbe)
        -> Result<(ImageMetricsRecord.StrategyMetrics, DecodedImage), DownsampleError> {
        let strategy = kind.strategy
        probe.start()
        let cpuBefore = ProcessMemory.cpuSeconds()
        let clock = ContinuousClock()
        let started = clock.now
        let result = Result { () throws(DownsampleError) -> DecodedImage in try strategy.decode(source, target: target) }
        let wall = clock.now - started
        let cpuSeconds = ProcessMemory.cpuSeconds() - cpuBefore
        let peakBytes = withExtendedLifetime(result) { probe.peakBytes() }
        return result.map { image in
            let metrics = ImageMetricsRecord.StrategyMetrics(
                retainedBytes: image.retainedBytes, peakBytes: peakBytes, cpuSeconds: max(0, cpuSeconds),
                wallSeconds: wall.inSeconds,
                outputWidth: image.width, outputHeight: image.height)
            return (metrics, image)
        }
    }

    /// SSIM and PSNR of renderer and thumbnail against a Lanczos3 reference
    /// of their own output size (they may differ by a pixel).
    func addQuality(to record: inout ImageMetricsRecord, outputs: [StrategyKind: DecodedImage], source: ImageSource) {
        var references: [PixelSize: DecodedImage] = [:]
        for kind in [StrategyKind.renderer, .thumbnail] {
            guard let output = outputs[kind] else { continue }
            let reference: DecodedImage
            if let made = references[output.size] {
                reference = made
            } else {
                do {
                    if let full = outputs[.naive] {
                        reference = try referenceImage(for: source, size: output.size, from: full)
                    } else {
                        reference = try referenceImage(for: source, size: output.size)
                    }
                } catch {
                    continue  // no reference, no score: ssim and psnr stay null
                }
                references[output.size] = reference
            }
            guard let scores = ImageSimilarity.compare(output, to: reference) else { continue }
            record.strategies[kind]?.ssim = scores.ssim
            record.strategies[kind]?.psnr = scores.psnr
        }
    }

    /// Formats already warmed up in this process.
    private static let warmedFormats = Mutex<Set<ImageFormat>>([])

    private func warmUpOnce(_ source: ImageSource) {
        let isFirst = Self.warmedFormats.withLock { $0.insert(source.header.format).inserted }
        guard isFirst else { return }
        for kind in StrategyKind.allCases {
            _ = try? kind.strategy.decode(source, target: configuration.target)
        }
    }
}

extension ImageMetricsRecord {
    /// Records an image that failed before any strategy ran, keeping what the error tells.
    mutating func fill(from error: DownsampleError) {
        self.error = error.description
        errorReason = error.reasonCode
        switch error {
        case .tooManyPixels(let format, let width, let height, _), .corrupt(let format, let width, let height, _):
            self.format = format
            self.width = width
            self.height = height
        case .unreadableHeader(let format, _):
            self.format = format
        default:
            break
        }
    }
}
