import Foundation
@testable import WarmSupport
import WarmTestSupport

/// Runs a program and measures its peak resident memory (ru_maxrss).
///
/// The program is started by a small Python process, which reads
/// RUSAGE_CHILDREN after it exits. Started directly, the figure would be
/// wrong: Linux carries the high-water mark of the address space a process
/// had before `exec` into ru_maxrss, and a child spawned by the test process
/// (vfork-style, or forked) starts from the test process's hundreds of MB.
/// Through Python the carried-over part is Python's own (about 10 MB).
enum MeasuredChild {
    struct Result {
        /// Exit status, or 128 + the signal that ended it.
        var status: Int32
        var stdout: String
        var stderr: String
        var peakResidentBytes: Int
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> Result {
        let directory = try TemporaryDirectory.create("measured")
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("stdout").path
        let err = directory.appendingPathComponent("stderr").path
        let rss = directory.appendingPathComponent("maxrss").path
        let python = try ChildProcess.run("/usr/bin/env", arguments: ["python3", "-c", script, out, err, rss, executable.path] + arguments,
                                          environment: ProcessInfo.processInfo.environment)
        let kilobytes = Int((try? String(contentsOfFile: rss, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        return Result(status: python.status.shellStatus,
                      stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "",
                      peakResidentBytes: kilobytes * 1024)  // Linux reports kilobytes
    }

    static let script = """
        import resource, subprocess, sys
        out, err, rss = sys.argv[1:4]
        with open(out, "wb") as o, open(err, "wb") as e:
            code = subprocess.run(sys.argv[4:], stdout=o, stderr=e, stdin=subprocess.DEVNULL).returncode
        with open(rss, "w") as f:
            f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        sys.exit(code if code >= 0 else 128 - code)
        """
}
