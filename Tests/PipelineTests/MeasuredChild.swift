import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with posix_spawn and reaps it with wait4, which returns the
/// child's own resource usage: its peak resident memory (ru_maxrss), rather
/// than the largest of every child the test process ever had (what
/// RUSAGE_CHILDREN reports).
enum MeasuredChild {
    struct Result {
        /// Exit status, or 128 + the signal that ended it.
        var status: Int32
        var stdout: String
        var stderr: String
        var peakResidentBytes: Int
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> Result {
        let directory = try makeTemporaryDirectory("measured")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outPath = directory.appendingPathComponent("stdout").path
        let errPath = directory.appendingPathComponent("stderr").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }

        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let signal = status & 0x7F
        return Result(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal,
                      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                      peakResidentBytes: usage.ru_maxrss * 1024)  // Linux reports kilobytes
    }
}
