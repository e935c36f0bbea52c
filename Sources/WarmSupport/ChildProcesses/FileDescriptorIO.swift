import Foundation
import SystemPackage

/// Blocking whole-buffer reads and writes on a descriptor through swift-system, which retries on EINTR.
public enum FileDescriptorIO {
    /// Writes all of `data`; false when the other end is gone (or another error, left in `errno`).
    @discardableResult
    public static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        (try? FileDescriptor(rawValue: fd).writeAll(data)) != nil
    }

    /// Reads until the end of input (or an error) and returns what came.
    public static func readAll(_ fd: Int32) -> Data {
        var output = Data()
        while let chunk = readChunk(fd) { output.append(contentsOf: chunk) }
        return output
    }

    /// The next bytes that arrive (up to 16 KiB), waiting for some; nil at the end of input or on an error.
    public static func readChunk(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = (try? chunk.withUnsafeMutableBytes { try FileDescriptor(rawValue: fd).read(into: $0) }) ?? 0
        return count > 0 ? Array(chunk[..<count]) : nil
    }
}
