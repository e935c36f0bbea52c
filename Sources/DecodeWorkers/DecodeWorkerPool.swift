import ChildProcesses
import Downsample
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Long-lived worker processes, one image at a time each: no shared GLib/libvips locks, ORC usable, a codec crash
/// costs one image (bench/findings.md, section 1). One `NIOThreadPool` thread per worker blocks on its pipes.
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

    private let threads: NIOThreadPool
    private let idle: NIOLockedValueBox<[DecodeWorker]>
    private let workers: [DecodeWorker]

    /// Starts the workers now, so they load their libraries while the caller gets its first image ready.
    public init(configuration: Configuration) {
        // A worker that dies between requests must not kill the parent writing to its pipe: EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        workers = (0..<configuration.count).map { _ in DecodeWorker(configuration: configuration) }
        for worker in workers { try? worker.start() }  // a failure shows again on the first decode
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

    /// Reaps the workers, so that the parent's resource usage includes theirs.
    public func shutdown() async {
        try? await threads.shutdownGracefully()
        for worker in workers { worker.stop() }
    }
}
