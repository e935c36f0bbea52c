import WarmSupport
import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resident memory and CPU time as Linux reports them, read around one strategy run.
public enum ProcessMemory {
    /// Resets the kernel's peak RSS (`VmHWM`) to the current RSS. False when
    /// `/proc/self/clear_refs` cannot be written (old kernel, locked-down container).
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var five = UInt8(ascii: "5")
        return write(fd, &five, 1) == 1
    }

    static func resident() -> (rssBytes: Int, peakBytes: Int)? {
        guard let status = procText("/proc/self/status"),
              let rss = kilobytes(after: "VmRSS:", in: status), let hwm = kilobytes(after: "VmHWM:", in: status) else {
            return nil
        }
        return (rss * 1024, hwm * 1024)
    }

    /// The process's peak resident memory (`VmHWM`) in bytes so far, 0 where there is no procfs.
    public static func peakResidentBytes() -> Int {
        resident()?.peakBytes ?? 0
    }

    /// A procfs file read to its end: Foundation's `String(contentsOfFile:)` stops after the first 4 KiB of one.
    static func procText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return String(decoding: FileDescriptorIO.readAll(fd), as: UTF8.self)
    }

    static func kilobytes(after label: String, in status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
        return Int(line.dropFirst(label.count).filter(\.isNumber))
    }

    /// The file part of every readable file mapping, adjacent ones joined. The measuring process reads it once;
    /// its children share the layout, so each only pages the ranges in again (a fork does not copy their page tables).
    static func mappedFileRanges() -> [Range<Int>] {
        guard let maps = procText("/proc/self/maps") else { return [] }
        var ranges: [Range<Int>] = []
        for line in maps.split(separator: "\n") {
            // start-end perms offset dev inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1].first == "r" else { continue }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            guard path.hasPrefix("/"), !path.hasPrefix("/dev/"), !path.hasSuffix("(deleted)") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = Int(range[0], radix: 16), let end = Int(range[1], radix: 16),
                  let offset = Int(fields[2], radix: 16) else { continue }
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let inFile = min(end, start + max(0, Int(info.st_size) - offset))
            guard inFile > start else { continue }
            if let last = ranges.last, last.upperBound == start {
                ranges[ranges.count - 1] = last.lowerBound..<inFile
            } else {
                ranges.append(start..<inFile)
            }
        }
        return ranges
    }

    /// Pages `ranges` in (MADV_POPULATE_READ, Linux 5.14+), so code first run in a measurement is not paged in inside
    /// it; returns the pages touched.
    @discardableResult
    static func faultIn(_ ranges: [Range<Int>]) -> Int {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        return ranges.reduce(0) { touched, range in
            let done = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), range.count, 22) == 0
            return done ? touched + range.count / pageSize : touched
        }
    }
}
