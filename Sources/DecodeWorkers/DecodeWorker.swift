import ChildProcesses
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The parent side of one decode worker process: starts it, sends it one
/// image at a time and reads the answer, and starts a new one when it died.
///
/// `@unchecked Sendable` is safe: `DecodeWorkerPool` hands a worker to one
/// thread at a time (under its lock), and only that thread touches `child`.
final class DecodeWorker: @unchecked Sendable {
    private let command: [String]
    private let settings: WorkerSettings
    private let environment: [String: String]
    private let timeoutSeconds: Double
    private var child: (process: ChildProcess, channel: FrameChannel)?
    /// Whether the running child has answered its `configure` call.
    private var configured = false

    init(command: [String], environment: [String: String], settings: WorkerSettings, timeoutSeconds: Double) {
        self.command = command
        self.environment = environment
        self.settings = settings
        self.timeoutSeconds = timeoutSeconds
    }

    /// Starts the process now (it configures itself while the parent goes on).
    func start() -> DownsampleError? {
        guard child == nil else { return nil }
        let spawned: (process: ChildProcess, channel: FrameChannel)
        switch Self.spawn(command, environment: environment) {
        case .success(let value): spawned = value
        case .failure(let error): return error
        }
        child = spawned
        configured = false
        guard let json = try? JSONEncoder().encode(WorkerCall.configure(settings)) else {
            return .decoderUnavailable(reason: "cannot encode the worker settings")
        }
        do {
            try spawned.channel.send(FrameChannel.Frame(json: json, blobs: []))
        } catch {
            return ended(after: error, deadline: .now + .milliseconds(Int64(timeoutSeconds * 1000)))
        }
        return nil
    }

    /// Blocking: one image, start to end. A worker that dies or overruns the
    /// timeout fails this image only; the next call starts a new process.
    func decode(_ input: ThumbnailInput, _ request: ThumbnailRequest) -> Result<Thumbnails, DownsampleError> {
        if child == nil, let error = start() { return .failure(error) }
        guard let channel = child?.channel else { return .failure(.decoderUnavailable(reason: "the worker did not start")) }
        let call: WorkerCall
        let blobs: [Data]
        switch input {
        case .bytes(let data): (call, blobs) = (.decode(request, path: nil), [data])
        case .file(let path): (call, blobs) = (.decode(request, path: path), [])
        }
        guard let json = try? JSONEncoder().encode(call) else { return .failure(.decoderUnavailable(reason: "cannot encode the request")) }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeoutSeconds * 1000))
        do {
            try channel.send(FrameChannel.Frame(json: json, blobs: blobs))
            while true {
                let frame = try channel.receive(deadline: deadline)
                switch try? JSONDecoder().decode(WorkerAnswer.self, from: frame.json) {
                case .ready where !configured:
                    configured = true  // the answer to `configure`, read lazily
                    continue
                case .failed(let error) where !configured:
                    stop()
                    return .failure(error)
                case .ready:
                    return .failure(.decoderUnavailable(reason: "the worker answered out of turn"))
                case .thumbnails(let header, let facts, let placeholder):
                    guard facts.count == frame.blobs.count else { return .failure(.decoderUnavailable(reason: "the worker's answer is incomplete")) }
                    let images = zip(frame.blobs, facts).map { $1.image($0) }
                    return .success(Thumbnails(header: header, images: images, placeholder: placeholder))
                case .failed(let error):
                    return .failure(error)
                case nil:
                    return .failure(ended(after: .malformed))
                }
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

    /// The worker failed mid-request: kill it if it still runs, reap it, and
    /// say why, by its exit.
    /// A worker that closed its output may be dying (its status says how) or
    /// hanging: it is killed at `deadline` whatever its pipes do.
    private func ended(after failure: FrameChannel.Failure, deadline: ContinuousClock.Instant = .now) -> DownsampleError {
        guard let child else { return .decoderUnavailable(reason: "the worker is gone") }
        if failure != .closed { child.process.kill(SIGKILL) }
        close(child.channel.output)
        close(child.channel.input)
        let status = child.process.waitForExit(killingAt: failure == .closed ? deadline : .now)
        self.child = nil
        if failure == .timedOut { return .decoderTimedOut(seconds: timeoutSeconds) }
        if failure == .malformed { return .decoderProtocolError(reason: "a garbage, truncated or oversized frame") }
        if failure == .closed, status.signal == SIGKILL, ContinuousClock.now >= deadline {
            return .decoderTimedOut(seconds: timeoutSeconds)
        }
        if let signal = status.signal { return .decoderCrashed(signal: signal, memoryLimitBytes: settings.memoryLimitBytes) }
        return .decoderUnavailable(reason: "the worker exited with status \(status.exitStatus ?? 0) (\(failure))")
    }

    /// Starts the worker with its standard input and output on two pipes.
    private static func spawn(_ command: [String], environment: [String: String]) -> Result<(process: ChildProcess, channel: FrameChannel), DownsampleError> {
        guard let path = command.first else { return .failure(.decoderUnavailable(reason: "no worker command")) }
        do {
            let process = try ChildProcess.spawn(path, arguments: Array(command.dropFirst()),
                                                 environment: ChildProcess.inheritedEnvironment(adding: environment),
                                                 standardInput: .pipe, standardOutput: .pipe)
            // Both ends exist: they were asked for.
            return .success((process, FrameChannel(input: process.standardOutput!, output: process.standardInput!)))
        } catch {
            return .failure(.decoderUnavailable(reason: error.description))
        }
    }
}
