import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Blocking reads and writes of whole buffers on a file descriptor (a pipe
/// to or from a child), retrying when a signal interrupts them. No threads,
/// no run loop: the single-threaded measuring process uses them too.
public enum FileDescriptorIO {
    /// Writes all of `data`; false when the other end is gone (or another error).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Reads until the end of input (or an error) and returns what came.
    public static func readAll(_ fd: Int32) -> Data {
        var output = Data()
        while let chunk = readChunk(fd) { output.append(contentsOf: chunk) }
        return output
    }

    /// The next bytes that arrive (up to 16 KiB), waiting for some; nil at the
    /// end of input or on an error.
    public static func readChunk(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
