import WarmSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Long-lived worker processes, one image at a time each: no shared GLib/libvips locks, ORC usable, a codec crash
/// costs one image (bench/findings.md, section 1). One `WorkerPool` thread per worker blocks on its pipes.
public final class DecodeWorkerPool: ThumbnailDecoding {
    public struct Configuration: Sendable {
        /// An executable that runs `DecodeWorkerProcess.serve()`, e.g. `[warm, "decode-worker"]`.
        var command: [String]
        var count: Int
        var memoryLimitBytes: Int?
        /// An image whose decode takes longer fails, and its worker is killed.
        var timeoutSeconds: Double

        public static let defaultTimeoutSeconds: Double = 60

        public init(command: [String], count: Int = Machine.cores,
                    memoryLimitBytes: Int? = nil, timeoutSeconds: Double = defaultTimeoutSeconds) {
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
        var environment = ProcessInfo.processInfo.environment
        // One glibc arena, dynamic mmap threshold (bench/findings.md, section 2); a set `GLIBC_TUNABLES` is kept.
        if environment["GLIBC_TUNABLES"] == nil { environment["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=1" }
        // The parent reports a crash in one line; the runtime's backtrace (pages of stderr) only on request.
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        // The limit is set even when nil, so that the parent's own environment cannot set it.
        environment[DecodeWorkerProcess.memoryLimitVariable] = configuration.memoryLimitBytes.map(String.init) ?? ""
        workers = WorkerPool(command: configuration.command, environment: environment, count: configuration.count)
        for worker in workers.processes { _ = try? worker.channel() }  // a failure shows again on the first decode
    }

    public func thumbnails(of input: ThumbnailInput, _ request: ThumbnailRequest) async -> Result<Thumbnails, DownsampleError> {
        await workers.run(ifShutDown: .decoderShutDown) { [configuration] in $0.decode(input, request, configuration) }
    }

    /// Reaps the workers, so that the parent's resource usage includes theirs.
    public func shutdown() async {
        await workers.shutdown()
    }
}

/// The parent side of one decode worker process, which `DecodeWorkerPool` hands to one thread at a time.
extension WorkerProcess {
    /// Blocking. A worker that dies or overruns the timeout fails this image only; the next call starts a new process.
    func decode(_ input: ThumbnailInput, _ request: ThumbnailRequest,
                _ configuration: DecodeWorkerPool.Configuration) -> Result<Thumbnails, DownsampleError> {
        guard !command.isEmpty else { return .failure(.decoderUnavailable(reason: "no worker command")) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(configuration.timeoutSeconds * 1000))
        do {
            switch try exchange(WorkerCall(input: input, request: request), answer: WorkerAnswer.self, deadline: deadline) {
            case .thumbnails(let thumbnails): return .success(thumbnails)
            case .failed(let error): return .failure(error)
            case nil: return .failure(ended(after: .malformed, configuration))
            }
        } catch {
            switch error {
            case .spawn(let error): return .failure(.decoderUnavailable(reason: error.description))
            case .channel(let failure): return .failure(ended(after: failure, deadline: deadline, configuration))
            }
        }
    }

    /// Kills and reaps a worker that failed mid-request and says why. One that closed its output may be dying
    /// (its status says how) or hanging: it is killed at `deadline` whatever its pipes do; any other, at once.
    private func ended(after failure: FrameChannel.Failure, deadline: ContinuousClock.Instant = .now,
                       _ configuration: DecodeWorkerPool.Configuration) -> DownsampleError {
        guard let status = stop(killingAt: failure == .closed ? deadline : .now) else {
            return .decoderUnavailable(reason: "the worker is gone")
        }
        if failure == .timedOut { return .decoderTimedOut(seconds: configuration.timeoutSeconds) }
        if failure == .malformed { return .decoderProtocolError(reason: "a garbage, truncated or oversized frame") }
        if failure == .closed, status == .signalled(SIGKILL), ContinuousClock.now >= deadline {
            return .decoderTimedOut(seconds: configuration.timeoutSeconds)
        }
        if case .signalled(let signal) = status {
            return .decoderCrashed(signal: signal, memoryLimitBytes: configuration.memoryLimitBytes)
        }
        return .decoderUnavailable(reason: "the worker \(status) (\(failure))")
    }
}
