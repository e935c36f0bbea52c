import ChildProcesses
import Downsample
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Decodes in long-lived worker processes, one per core by default, each
/// decoding one image at a time: `warm thumbnail` and `warm run` use it.
///
/// Why processes and not threads: pipelines in one process share GLib's and
/// libvips' locks and cannot use libvips' SIMD code (Debian 12's ORC crashes
/// when threads compile at once); a codec crash costs one image, and each
/// worker has its own memory limit (RLIMIT_AS) and per-image timeout. The
/// cost: a process start per worker, once, and each downloaded image copied
/// through a pipe. Each worker is driven by one thread of the pool's own
/// `NIOThreadPool`, which blocks on the pipes; Swift's cooperative pool never does.
public final class DecodeWorkerPool: ThumbnailDecoding {
    public struct Configuration: Sendable {
        /// The worker's command line: an executable that runs
        /// `DecodeWorkerProcess.serve()`, e.g. `[warm, "decode-worker"]`.
        public var command: [String]
        /// Worker processes (images decoded at once).
        public var count: Int
        /// RLIMIT_AS per worker, in bytes; nil for none.
        public var memoryLimitBytes: Int?
        /// An image whose decode takes longer fails, and its worker is killed.
        public var timeoutSeconds: Double
        /// Extra environment of the workers.
        public var environment: [String: String]

        public init(command: [String], count: Int = ProcessInfo.processInfo.activeProcessorCount,
                    memoryLimitBytes: Int? = nil, timeoutSeconds: Double = 60,
                    environment: [String: String] = Configuration.workerEnvironment) {
            self.command = command
            self.count = max(1, count)
            self.memoryLimitBytes = memoryLimitBytes
            self.timeoutSeconds = timeoutSeconds
            self.environment = environment
        }

        /// The workers' environment: one glibc arena (a worker's few threads never
        /// allocate at once), the dynamic mmap threshold kept (bench/findings.md);
        /// a `GLIBC_TUNABLES` already in the environment is left as it is.
        public static var workerEnvironment: [String: String] {
            var environment: [String: String] = [:]
            let inherited = ProcessInfo.processInfo.environment
            if inherited["GLIBC_TUNABLES"] == nil { environment["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=1" }
            // A crashing worker is reported by the parent in one line naming
            // the image and the signal; the Swift runtime's backtrace of it
            // (seconds, and pages of stderr) only when asked for.
            if inherited["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
            return environment
        }

        /// The running executable (`/proc/self/exe`), for a worker command
        /// that re-runs this binary.
        public static var currentExecutable: String {
            ChildProcess.currentExecutablePath()
        }
    }

    private let threads: NIOThreadPool
    private let idle: NIOLockedValueBox<[DecodeWorker]>
    private let workers: [DecodeWorker]

    /// Starts the workers now, so that they load their libraries while the
    /// caller gets its first image ready.
    public init(configuration: Configuration) {
        // A worker that dies between two requests must not kill the parent
        // when the parent writes to its pipe: that is an error (EPIPE) instead.
        signal(SIGPIPE, SIG_IGN)
        workers = (0..<configuration.count).map { _ in
            DecodeWorker(command: configuration.command, environment: configuration.environment,
                         memoryLimitBytes: configuration.memoryLimitBytes, timeoutSeconds: configuration.timeoutSeconds)
        }
        for worker in workers { _ = worker.start() }  // a failure shows again on the first decode
        idle = NIOLockedValueBox(workers)
        threads = NIOThreadPool(numberOfThreads: configuration.count)
        threads.start()
    }

    public func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        await threads.decode { [idle] in
            // As many threads as workers: a running job always finds one idle.
            guard let worker = idle.withLockedValue({ $0.popLast() }) else {
                return .failure(.decoderUnavailable(reason: "no idle worker"))
            }
            defer { idle.withLockedValue { $0.append(worker) } }
            return worker.decode(input, request)
        }
    }

    /// Lets the workers finish, closes their pipes and reaps them (so that a
    /// parent's resource usage includes theirs).
    public func shutdown() async {
        try? await threads.shutdownGracefully()
        for worker in workers { worker.stop() }
    }
}
