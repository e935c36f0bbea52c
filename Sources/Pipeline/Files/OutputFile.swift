import ChildProcesses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Temp file beside the output, then rename, so no reader sees half a file. Not fsynced (a run writes lost outputs
/// again), nor Foundation's `.atomic`: bench/findings.md section 7. The disk cache keeps its fsyncing writer.
enum OutputFile {
    /// Blocking: call it off the cooperative pool. Nil when the file is in place, else the call that failed and why.
    static func replace(_ path: String, with data: Data) -> String? {
        let failure = { (call: String) in "\(call): \(String(cString: strerror(errno)))" }
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return failure("open") }
        var failed: String?
        if !FileDescriptorIO.writeAll(fd, data) { failed = failure("write") }
        if close(fd) != 0, failed == nil { failed = failure("close") }
        if failed == nil, rename(temporary, path) != 0 { failed = failure("rename") }
        if failed != nil { unlink(temporary) }
        return failed
    }
}
