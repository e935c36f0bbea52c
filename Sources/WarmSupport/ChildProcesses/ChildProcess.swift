import CLibcGNU
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The one way to start a process (`posix_spawn`); not swift-subprocess, which scopes a child to one async closure
/// where a decode worker outlives it. Whoever spawns it closes its pipe ends and waits for it exactly once.
public struct ChildProcess: Sendable {
    /// `.pipe`: a new pipe, the parent gets the other end. `.file`: read from (standard input), or appended to and
    /// created when missing (output), so standard output and error can share one log; "/dev/null" discards.
    public enum Stream: Sendable {
        case inherit
        case pipe
        case file(String)
    }

    let pid: pid_t
    /// The parent's ends of the pipes (`.pipe` only).
    public let standardInput: Int32?
    public let standardOutput: Int32?
    public let standardError: Int32?

    /// Pipe ends are close-on-exec from birth, so no child another thread spawns meanwhile inherits them. The child
    /// starts in `workingDirectory` (nil: this process's), with no signal blocked and every signal's default action,
    /// whichever thread spawns it (Swift's pool threads block some; `WorkerPool` ignores SIGPIPE).
    public static func spawn(_ path: String, arguments: [String], environment: [String: String],
                             standardInput: Stream = .inherit, standardOutput: Stream = .inherit,
                             standardError: Stream = .inherit,
                             workingDirectory: String? = nil) throws(SpawnError) -> ChildProcess {
        let streams = [standardInput, standardOutput, standardError]
        var pipes: [Pipe?] = []
        for (descriptor, stream) in streams.enumerated() {
            do {
                pipes.append(try Pipe.make(stream, for: Int32(descriptor), path: path))
            } catch {
                pipes.forEach { $0?.closeBoth() }
                throw error
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, (stream, pipe)) in zip(streams, pipes).enumerated() {
            let target = Int32(descriptor)
            if let pipe { posix_spawn_file_actions_adddup2(&actions, pipe.childEnd, target) }
            if case .file(let file) = stream {
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_APPEND
                posix_spawn_file_actions_addopen(&actions, target, file, flags, 0o644)
            }
        }
        // Nothing else this process holds reaches the child, close-on-exec or not (Foundation's
        // `Process` leaves a socket open that it watches to learn when its child is gone).
        _ = posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        // Last, so that the `.file` paths above are taken from this process's directory.
        if let workingDirectory { _ = posix_spawn_file_actions_addchdir_np(&actions, workingDirectory) }

        let pid = spawn(path, arguments: arguments, environment: environment, actions: &actions)
        // The child's ends live on in the child only.
        for case let pipe? in pipes { close(pipe.childEnd) }
        switch pid {
        case .success(let pid):
            return ChildProcess(pid: pid, standardInput: pipes[0]?.parentEnd, standardOutput: pipes[1]?.parentEnd,
                                standardError: pipes[2]?.parentEnd)
        case .failure(let error):
            for case let pipe? in pipes { close(pipe.parentEnd) }
            throw error
        }
    }

    private static func spawn(_ path: String, arguments: [String], environment: [String: String],
                              actions: inout posix_spawn_file_actions_t) -> Result<pid_t, SpawnError> {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        return status == 0 ? .success(pid) : .failure(.cannotStart(path: path, errno: status))
    }

    /// The running binary (`/proc/self/exe`), or argv[0] when that cannot be read.
    public static func currentExecutablePath() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        return CommandLine.arguments[0]
    }

    public func kill(_ signal: Int32 = SIGKILL) {
        _ = Glibc.kill(pid, signal)
    }

    /// Blocks: never call it on Swift's cooperative pool (use `exitStatus()`).
    public func waitForExit() -> ExitStatus {
        Self.waitForExit(pid: pid)
    }

    /// SIGKILLs the child still running at `deadline`: one that closed its pipes but hangs cannot hold the caller.
    public func waitForExit(killingAt deadline: ContinuousClock.Instant) -> ExitStatus {
        while ContinuousClock.now < deadline {
            if let status = exitStatusIfExited() { return status }
            usleep(10_000)
        }
        kill(SIGKILL)
        return waitForExit()
    }

    /// Reaps the child if it has exited; nil while it runs. Never blocks, so a caller may poll it from async code.
    /// A child that cannot be waited for (reaped already) reads as exited, as with `waitForExit`.
    func exitStatusIfExited() -> ExitStatus? {
        var status: Int32 = 0
        while true {
            switch waitpid(pid, &status, WNOHANG) {
            case 0: return nil
            case -1 where errno == EINTR: continue
            default: return ExitStatus(waitStatus: status)
            }
        }
    }

    /// Reaps `pid` (a child of this one, from `spawn` or `fork`), blocking until it has exited.
    public static func waitForExit(pid: pid_t) -> ExitStatus {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return ExitStatus(waitStatus: status)
    }

    /// Waits for the child's exit on NIO's shared thread pool (`BlockingWork`).
    public func exitStatus() async -> ExitStatus {
        await BlockingWork.run { [pid] in Self.waitForExit(pid: pid) }
    }
}

/// Both ends of one pipe, close-on-exec: the child's end becomes its descriptor 0, 1 or 2.
private struct Pipe {
    let childEnd: Int32
    let parentEnd: Int32

    static func make(_ stream: ChildProcess.Stream, for descriptor: Int32, path: String) throws(SpawnError) -> Pipe? {
        guard case .pipe = stream else { return nil }
        var ends: [Int32] = [-1, -1]
        // pipe2 through CLibcGNU: Swift's Glibc module does not import it.
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw .cannotStart(path: path, errno: errno) }
        // The child reads its standard input and writes the others.
        return descriptor == 0 ? Pipe(childEnd: ends[0], parentEnd: ends[1]) : Pipe(childEnd: ends[1], parentEnd: ends[0])
    }

    func closeBoth() {
        close(childEnd)
        close(parentEnd)
    }
}

/// Why a child process could not be started.
public enum SpawnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `posix_spawn` (or a pipe for it) failed with `errno`.
    case cannotStart(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotStart(let path, let code): "cannot start \(path): \(Errno(rawValue: code))"
        }
    }
}
