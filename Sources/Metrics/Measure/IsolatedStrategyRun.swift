import ChildProcesses
import Downsample
import Foundation

/// One strategy measured once on one image, in a fresh process that does
/// nothing else: the parent (`StrategyMeasurer` with
/// `PeakIsolation.childProcess`) writes the image to a file and runs
/// `warm measure-strategy`, which calls `runHere()` and prints the `Report` as
/// one JSON line. Each repeat is a process of its own.
///
/// Why a cold process and no warm-up decode: whatever ran before a span moves
/// its peak. Measured while this was built, on a 1280x960 JPEG at 300 px: in
/// a long-lived process a full decode's peak moved by up to 3.5 MB between
/// runs of the demo catalog; in one process per image with a warm-up decode
/// before each strategy, the naive and renderer phases sat 100-300 KiB apart
/// in either direction, as much as the renderer's canvas (264 KiB). In fresh
/// processes with the allocator tunables and the files faulted in, eight runs
/// each: naive 10,676-10,984 KiB, renderer 10,884-11,276 KiB. The remaining
/// jitter is why close calls get more runs (`closeCallRepeats`). What a fresh
/// process pays on its first decode and is not code (libvips' worker thread
/// and its stack, the codecs' first-use allocations) is in every peak, the
/// same for every image of a format.
public struct IsolatedStrategyRun: Sendable, Hashable {
    public var kind: StrategyKind
    public var imagePath: String
    public var target: DecodeTarget
    public var limits: DecodeLimits
    public var preferredPeakMethod: PeakMethod

    public init(kind: StrategyKind, imagePath: String, target: DecodeTarget, limits: DecodeLimits = .default,
                preferredPeakMethod: PeakMethod = .freshProcess) {
        self.kind = kind
        self.imagePath = imagePath
        self.target = target
        self.limits = limits
        self.preferredPeakMethod = preferredPeakMethod
    }

    /// What the child prints: the metrics, or why the strategy failed.
    public struct Report: Sendable, Equatable, Codable {
        public var metrics: ImageMetricsRecord.StrategyMetrics?
        public var peakMethod: PeakMethod
        public var error: String?
        public var errorReason: String?
    }

    /// Why a child gave no report.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case couldNotStart(executable: String, reason: String)
        case exited(executable: String, status: Int32?, signal: Int32?)
        case unreadableReport(executable: String, output: String)

        public var description: String {
            switch self {
            case .couldNotStart(let executable, let reason):
                "the measuring process could not start (\(executable)): \(reason)"
            case .exited(let executable, let status?, _):
                "the measuring process (\(executable)) exited with status \(status)"
            case .exited(let executable, _, let signal):
                "the measuring process (\(executable)) was killed by signal \(signal ?? 0)"
            case .unreadableReport(let executable, let output):
                "the measuring process (\(executable)) printed no report: \(output.prefix(200))"
            }
        }
    }

    /// Child side: measures in this process, which should have done nothing else.
    public func runHere() -> Report {
        measureHere().report
    }

    /// `runHere()`, also handing back the opened image and the strategy's
    /// output (alive past the span, whose peak is already read) for
    /// unmeasured work afterwards; nil when the strategy failed.
    func measureHere() -> (report: Report, measured: (source: ImageSource, output: DecodedImage)?) {
        StrategyMeasurer.prepareProcess()
        var probe = PeakMemoryProbe(preferred: preferredPeakMethod)
        let source: ImageSource
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: imagePath))
            source = try ImageSource(data: data, limits: limits)
        } catch let error as DownsampleError {
            return (Report(metrics: nil, peakMethod: probe.method, error: error.description, errorReason: error.reasonCode), nil)
        } catch {
            return (Report(metrics: nil, peakMethod: probe.method, error: "the image file cannot be read: \(error.localizedDescription)",
                           errorReason: "unreadable-file"), nil)
        }
        // Code first run by the decode would otherwise be paged in inside the span.
        ProcessMemory.faultInMappedFiles()
        switch StrategyMeasurer.measureSpan(kind, source, target: target, probe: &probe) {
        case .success(let (metrics, output)):
            return (Report(metrics: metrics, peakMethod: probe.method, error: nil, errorReason: nil), (source, output))
        case .failure(let error):
            return (Report(metrics: nil, peakMethod: probe.method, error: error.description, errorReason: error.reasonCode), nil)
        }
    }

    /// The child's allocator settings, as glibc tunables so that they hold
    /// from its first allocation: `StrategyMeasurer.prepareProcess()` sets the
    /// same with `mallopt`, but only after the Swift runtime and the thread
    /// running the command have allocated (that thread keeps an arena of its
    /// own, and libvips' workers then share out between two arenas). Adds a
    /// zero top pad, so that the heap grows page by page rather than in
    /// 128 KiB steps. Measured on a progressive 4032x3024 JPEG, eight fresh
    /// processes each, files faulted in: without these, naive peaks spread
    /// over 568 KiB; with them, over 228 KiB.
    static func childEnvironment() -> [String: String] {
        let tunables = "glibc.malloc.arena_max=1:glibc.malloc.top_pad=0:glibc.malloc.mmap_threshold=65536"
        let inherited = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"]
        return ["GLIBC_TUNABLES": inherited.map { "\($0):\(tunables)" } ?? tunables]
    }

    /// Parent side: runs `executable measure-strategy ...` and reads its
    /// report; the child is waited for off the cooperative pool.
    func run(executable: String) async -> Result<Report, Failure> {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(executable, arguments: commandLine,
                                                 environment: ChildProcess.inheritedEnvironment(adding: Self.childEnvironment()))
        } catch {
            return .failure(.couldNotStart(executable: executable, reason: error.description))
        }
        guard outcome.status == .exited(0) else {
            return .failure(.exited(executable: executable, status: outcome.status.exitStatus, signal: outcome.status.signal))
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: outcome.standardOutput) else {
            return .failure(.unreadableReport(executable: executable,
                                              output: String(decoding: outcome.standardOutput, as: UTF8.self)))
        }
        return .success(report)
    }
}
