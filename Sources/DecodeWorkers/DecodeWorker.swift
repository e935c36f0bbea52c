import ChildProcesses
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The parent side of one decode worker process, restarted when it died. `@unchecked Sendable`: `DecodeWorkerPool`
/// hands a worker to one thread at a time (under its lock), and only that thread touches `child`.
final class DecodeWorker: @unchecked Sendable {
    private let configuration: DecodeWorkerPool.Configuration
    private var child: (process: ChildProcess, channel: FrameChannel)?

    init(configuration: DecodeWorkerPool.Configuration) {
        self.configuration = configuration
    }

    /// Starts the process now (it loads its libraries while the parent goes on).
    func start() throws(DownsampleError) {
        guard child == nil else { return }
        guard let path = configuration.command.first else { throw .decoderUnavailable(reason: "no worker command") }
        // The limit is set even when nil, so that the parent's own environment cannot set it.
        let limit = [DecodeWorkerProcess.memoryLimitVariable: configuration.memoryLimitBytes.map(String.init) ?? ""]
        do {
            let process = try ChildProcess.spawn(
                path, arguments: Array(configuration.command.dropFirst()),
                environment: ChildProcess.inheritedEnvironment(adding: Self.environment.merging(limit) { $1 }),
                standardInput: .pipe, standardOutput: .pipe)
            // Both ends exist: they were asked for.
            child = (process, FrameChannel(input: process.standardOutput!, output: process.standardInput!))
        } catch {
            throw .decoderUnavailable(reason: error.description)
        }
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

    /// Blocking. A worker that dies or overruns the timeout fails this image only; the next call starts a new process.
    func decode(_ input: ThumbnailInput, _ request: ThumbnailRequest) -> Result<Thumbnails, DownsampleError> {
        do { try start() } catch { return .failure(error) }
        guard let channel = child?.channel else { return .failure(.decoderUnavailable(reason: "the worker did not start")) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(configuration.timeoutSeconds * 1000))
        do {
            try channel.send(WorkerCall(input: input, request: request))
            switch try channel.receive(WorkerAnswer.self, deadline: deadline) {
            case .thumbnails(let thumbnails): return .success(thumbnails)
            case .failed(let error): return .failure(error)
            case nil: return .failure(ended(after: .malformed))
            }
        } catch {
            return .failure(ended(after: error, deadline: deadline))
        }
    }

    /// Closes the worker's input (it exits) and reaps it.
    func stop() {
        guard let child else { return }
        close(child.channel.output)
        close(child.channel.input)
        _ = child.process.waitForExit(killingAt: .now + .seconds(5))
        self.child = nil
    }

    /// Kills and reaps a worker that failed mid-request and says why. One that closed its output may be dying
    /// (its status says how) or hanging: it is killed at `deadline` whatever its pipes do.
    private func ended(after failure: FrameChannel.Failure, deadline: ContinuousClock.Instant = .now) -> DownsampleError {
        guard let child else { return .decoderUnavailable(reason: "the worker is gone") }
        if failure != .closed { child.process.kill(SIGKILL) }
        close(child.channel.output)
        close(child.channel.input)
        let status = child.process.waitForExit(killingAt: failure == .closed ? deadline : .now)
        self.child = nil
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
