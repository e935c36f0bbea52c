import ChildProcesses
import Downsample
import Foundation

/// Long-lived worker processes, one image at a time each: no shared GLib/libvips locks, ORC usable, a codec crash
/// costs one image (bench/findings.md, section 1). One `WorkerPool` thread per worker blocks on its pipes.
public final class DecodeWorkerPool: ThumbnailDecoding {
    public struct Configuration: Sendable {
        /// An executable that runs `DecodeWorkerProcess.serve()`, e.g. `[warm, "decode-worker"]`.
        public var command: [String]
        public var count: Int
        public var memoryLimitBytes: Int?
        /// An image whose decode takes longer fails, and its worker is killed.
        public var timeoutSeconds: Double

        public init(command: [String], count: Int = ProcessInfo.processInfo.activeProcessorCount,
                    memoryLimitBytes: Int? = nil, timeoutSeconds: Double = 60) {
            self.command = command
            self.count = max(1, count)
            self.memoryLimitBytes = memoryLimitBytes
            self.timeoutSeconds = timeoutSeconds
        }
    }

    private let configuration: Configuration
    private let workers: WorkerPool

    /// Starts the workers now, so they load their libraries while the caller gets its first image ready.
    public init(configuration: Configuration) {
        self.configuration = configuration
        // The limit is set even when nil, so that the parent's own environment cannot set it.
        let limit = [DecodeWorkerProcess.memoryLimitVariable: configuration.memoryLimitBytes.map(String.init) ?? ""]
        workers = WorkerPool(command: configuration.command,
                             environment: ChildProcess.inheritedEnvironment(adding: Self.environment.merging(limit) { $1 }),
                             count: configuration.count)
        for worker in workers.processes { _ = try? worker.channel() }  // a failure shows again on the first decode
    }

    /// One glibc arena, dynamic mmap threshold (bench/findings.md, section 2); a set `GLIBC_TUNABLES` is kept.
    private static let environment: [String: String] = {
        var environment: [String: String] = [:]
        let inherited = ProcessInfo.processInfo.environment
        if inherited["GLIBC_TUNABLES"] == nil { environment["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=1" }
        // The parent reports a crash in one line; the runtime's backtrace (pages of stderr) only on request.
        if inherited["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        return environment
    }()

    public func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        await workers.run(ifShutDown: .decoderShutDown) { [configuration] in $0.decode(input, request, configuration) }
    }

    /// Reaps the workers, so that the parent's resource usage includes theirs.
    public func shutdown() async {
        await workers.shutdown()
    }
}
