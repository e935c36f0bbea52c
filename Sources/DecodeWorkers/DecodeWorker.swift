import CWarmVips
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
    private var child: (pid: pid_t, channel: FrameChannel)?
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
        let spawned: (pid: pid_t, channel: FrameChannel)
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
            return ended(after: error)
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
                case .thumbnails(let header, let sizes):
                    guard sizes.count == frame.blobs.count else { return .failure(.decoderUnavailable(reason: "the worker's answer is incomplete")) }
                    let images = zip(frame.blobs, sizes).map { EncodedImage(data: $0, size: $1, format: request.format) }
                    return .success(Thumbnails(header: header, images: images))
                case .failed(let error):
                    return .failure(error)
                case nil:
                    return .failure(.decoderUnavailable(reason: "the worker's answer cannot be read"))
                }
            }
        } catch {
            return .failure(ended(after: error))
        }
    }

    /// Closes the worker's input (it exits) and reaps it.
    func stop() {
        guard let child else { return }
        close(child.channel.output)
        close(child.channel.input)
        while waitpid(child.pid, nil, 0) < 0 && errno == EINTR {}
        self.child = nil
    }

    /// The worker failed mid-request: kill it if it still runs, reap it, and
    /// say why, by its exit.
    private func ended(after failure: FrameChannel.Failure) -> DownsampleError {
        guard let child else { return .decoderUnavailable(reason: "the worker is gone") }
        if failure == .timedOut || failure != .closed { kill(child.pid, SIGKILL) }
        close(child.channel.output)
        close(child.channel.input)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        self.child = nil
        let signal = status & 0x7f  // WIFSIGNALED/WTERMSIG are macros Swift does not import
        if failure == .timedOut { return .decoderTimedOut(seconds: timeoutSeconds) }
        if signal != 0 { return .decoderCrashed(signal: signal, memoryLimitBytes: settings.memoryLimitBytes) }
        return .decoderUnavailable(reason: "the worker exited with status \((status >> 8) & 0xff) (\(failure))")
    }

    /// posix_spawn with the child's standard input and output on two pipes
    /// (close-on-exec here, so no other child inherits them).
    private static func spawn(_ command: [String], environment: [String: String]) -> Result<(pid: pid_t, channel: FrameChannel), DownsampleError> {
        guard let path = command.first else { return .failure(.decoderUnavailable(reason: "no worker command")) }
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard warm_pipe_cloexec(&toChild) == 0 else { return .failure(.decoderUnavailable(reason: String(cString: strerror(errno)))) }
        guard warm_pipe_cloexec(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            return .failure(.decoderUnavailable(reason: String(cString: strerror(errno))))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard status == 0 else {
            close(toChild[1]); close(fromChild[0])
            return .failure(.decoderUnavailable(reason: "cannot start \(path): \(String(cString: strerror(status)))"))
        }
        return .success((pid, FrameChannel(input: fromChild[0], output: toChild[1])))
    }
}
