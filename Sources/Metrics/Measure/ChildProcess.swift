import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program and collects its standard output and exit status.
///
/// Written by hand over `posix_spawn` rather than with Foundation's `Process`:
/// a measurement waits for one short child at a time while holding the
/// measurement gate, and `Process` on Linux needs a run loop thread to notice
/// the exit; no listed package (swift-subprocess is not on the mirror) does it.
enum ChildProcess {
    struct Outcome: Sendable {
        /// Exit status, or nil when the child was killed by a signal.
        var exitStatus: Int32?
        var signal: Int32?
        var standardOutput: Data
    }

    enum Failure: Error, CustomStringConvertible {
        case spawnFailed(path: String, errno: Int32)

        var description: String {
            switch self {
            case .spawnFailed(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// `/proc/self/exe` resolved (the running binary), or argv[0] when that cannot be read.
    static func currentExecutablePath() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        return CommandLine.arguments[0]
    }

    /// Starts `path` with `arguments` and this process's environment plus
    /// `environment` (standard error inherited), with pipes on its standard
    /// input and output: returns its pid, the end to write its input to and
    /// the end to read its output from. The caller closes both and waits for it.
    static func spawnPiped(_ path: String, arguments: [String],
                           environment: [String: String] = [:]) throws(Failure) -> (pid: pid_t, input: Int32, output: Int32) {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { throw .spawnFailed(path: path, errno: errno) }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw .spawnFailed(path: path, errno: errno)
        }
        // The parent's ends must not leak into other children.
        _ = fcntl(toChild[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fromChild[0], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addclose(&actions, toChild[0])
        posix_spawn_file_actions_addclose(&actions, fromChild[1])

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw .spawnFailed(path: path, errno: spawned)
        }
        return (pid, toChild[1], fromChild[0])
    }

    /// Runs `path` with `arguments` and this process's environment plus
    /// `environment` (standard error inherited), reads its standard output to
    /// the end and waits for it.
    static func run(_ path: String, arguments: [String], environment: [String: String] = [:]) throws(Failure) -> Outcome {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw .spawnFailed(path: path, errno: errno) }
        let readEnd = pipeEnds[0], writeEnd = pipeEnds[1]

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw .spawnFailed(path: path, errno: spawned)
        }

        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                output.append(contentsOf: chunk[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        close(readEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS are macros Swift does not import.
        let signal = status & 0x7f
        return signal == 0
            ? Outcome(exitStatus: (status >> 8) & 0xff, signal: nil, standardOutput: output)
            : Outcome(exitStatus: nil, signal: signal, standardOutput: output)
    }
}
