import CLibcGNU
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The one way to start a process (`posix_spawn`); not swift-subprocess, which scopes a child to one async closure
/// where a decode worker outlives it. Whoever spawns it closes its pipe ends and waits for it exactly once.
public struct ChildProcess: Sendable {
    /// `.pipe`: a new pipe, the parent gets the other end.
    public enum Stream: Sendable {
        case inherit
        case pipe
    }

    public let pid: pid_t
    /// The parent's ends of the pipes (`.pipe` only).
    public let standardInput: Int32?
    public let standardOutput: Int32?

    /// Pipe ends are close-on-exec from birth, so no child another thread spawns meanwhile inherits them.
    public static func spawn(_ path: String, arguments: [String], environment: [String: String],
                             standardInput: Stream = .inherit,
                             standardOutput: Stream = .inherit) throws(SpawnError) -> ChildProcess {
        let input = try Pipe.make(standardInput, path: path)
        let output: Pipe?
        do {
            output = try Pipe.make(standardOutput, path: path)
        } catch {
            input?.closeBoth()
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input.readEnd, 0) }
        if let output { posix_spawn_file_actions_adddup2(&actions, output.writeEnd, 1) }
        // Nothing else this process holds reaches the child, close-on-exec or not (Foundation's
        // `Process` leaves a socket open that it watches to learn when its child is gone).
        _ = posix_spawn_file_actions_addclosefrom_np(&actions, 3)

        let pid = spawn(path, arguments: arguments, environment: environment, actions: &actions)
        // The child's ends live on in the child only.
        if let input { close(input.readEnd) }
        if let output { close(output.writeEnd) }
        switch pid {
        case .success(let pid):
            return ChildProcess(pid: pid, standardInput: input?.writeEnd, standardOutput: output?.readEnd)
        case .failure(let error):
            if let input { close(input.writeEnd) }
            if let output { close(output.readEnd) }
            throw error
        }
    }

    private static func spawn(_ path: String, arguments: [String], environment: [String: String],
                              actions: inout posix_spawn_file_actions_t) -> Result<pid_t, SpawnError> {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
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
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return ExitStatus(waitStatus: status) }
            if reaped < 0 && errno != EINTR { break }
            usleep(10_000)
        }
        kill(SIGKILL)
        return waitForExit()
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

/// Both ends of one pipe, close-on-exec.
private struct Pipe {
    let readEnd: Int32
    let writeEnd: Int32

    static func make(_ stream: ChildProcess.Stream, path: String) throws(SpawnError) -> Pipe? {
        guard case .pipe = stream else { return nil }
        var ends: [Int32] = [-1, -1]
        // pipe2 through CLibcGNU: Swift's Glibc module does not import it.
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw .cannotStart(path: path, errno: errno) }
        return Pipe(readEnd: ends[0], writeEnd: ends[1])
    }

    func closeBoth() {
        close(readEnd)
        close(writeEnd)
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
