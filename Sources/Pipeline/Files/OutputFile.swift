import ChildProcesses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Temp file beside the output, then rename, so no reader sees half a file. Not fsynced (a run writes lost outputs
/// again), nor Foundation's `.atomic`: bench/findings.md section 7. The disk cache keeps its fsyncing writer.
enum OutputFile {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    /// Blocking: call it off the cooperative pool.
    static func replace(_ path: String, with data: Data) throws(Failure) {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "open", code: errno) }
        var failure: Failure?
        if !FileDescriptorIO.writeAll(fd, data) { failure = Failure(call: "write", code: errno) }
        if close(fd) != 0, failure == nil { failure = Failure(call: "close", code: errno) }
        if failure == nil, rename(temporary, path) != 0 { failure = Failure(call: "rename", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }
}
