import ChildProcesses
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The parent side of one decode worker process, which `DecodeWorkerPool` hands to one thread at a time.
extension WorkerProcess {
    /// Blocking. A worker that dies or overruns the timeout fails this image only; the next call starts a new process.
    func decode(_ input: ThumbnailInput, _ request: ThumbnailRequest,
                _ configuration: DecodeWorkerPool.Configuration) -> Result<Thumbnails, DownsampleError> {
        guard !command.isEmpty else { return .failure(.decoderUnavailable(reason: "no worker command")) }
        let channel: FrameChannel
        do {
            channel = try self.channel()
        } catch {
            return .failure(.decoderUnavailable(reason: error.description))
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(configuration.timeoutSeconds * 1000))
        do {
            try channel.send(WorkerCall(input: input, request: request))
            switch try channel.receive(WorkerAnswer.self, deadline: deadline) {
            case .thumbnails(let thumbnails): return .success(thumbnails)
            case .failed(let error): return .failure(error)
            case nil: return .failure(ended(after: .malformed, configuration))
            }
        } catch {
            return .failure(ended(after: error, deadline: deadline, configuration))
        }
    }

    /// Kills and reaps a worker that failed mid-request and says why. One that closed its output may be dying
    /// (its status says how) or hanging: it is killed at `deadline` whatever its pipes do.
    private func ended(after failure: FrameChannel.Failure, deadline: ContinuousClock.Instant = .now,
                       _ configuration: DecodeWorkerPool.Configuration) -> DownsampleError {
        if failure != .closed { kill() }
        guard let status = stop(killingAt: failure == .closed ? deadline : .now) else {
            return .decoderUnavailable(reason: "the worker is gone")
        }
        if failure == .timedOut { return .decoderTimedOut(seconds: configuration.timeoutSeconds) }
        if failure == .malformed { return .decoderProtocolError(reason: "a garbage, truncated or oversized frame") }
        if failure == .closed, status.signal == SIGKILL, ContinuousClock.now >= deadline {
            return .decoderTimedOut(seconds: configuration.timeoutSeconds)
        }
        if let signal = status.signal {
            return .decoderCrashed(signal: signal, memoryLimitBytes: configuration.memoryLimitBytes)
        }
        return .decoderUnavailable(reason: "the worker exited with status \(status.exitStatus ?? 0) (\(failure))")
    }
}
