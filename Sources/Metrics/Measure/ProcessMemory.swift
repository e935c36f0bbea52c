import Downsample
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's resident memory as Linux reports it, and the glibc settings
/// that make it follow allocations closely enough to measure one decode.
///
/// glibc serves large requests with `mmap` and returns them to the kernel on
/// `free`, but its threshold is dynamic: after a large block is freed it rises
/// (up to 32 MiB), and later bitmaps then come from the heap and stay resident
/// after release. A fixed 64 KiB threshold turns that off, so every pixel
/// buffer is its own mapping, resident exactly while it is alive.
///
/// glibc also gives threads their own arenas; free pages there stay resident
/// after `malloc_trim`, so a later decode on that thread grows into them
/// unseen (measured: a thumbnail peak read anywhere from 0 to 3 MB on one
/// image). One arena for the whole process makes the same image read within
/// 0.1 MB. The cost is more lock contention on small allocations, which a
/// process doing a handful of decodes at a time does not notice.
public enum ProcessMemory {
    /// Applies the fixed mmap threshold once per process (idempotent).
    static func configureAllocator() {
        _ = allocatorConfigured
    }

    private static let allocatorConfigured: Bool = {
        let threshold = ProcessAllocator.fixMmapThreshold(bytes: 64 * 1024)
        let arenas = ProcessAllocator.limitArenas(to: 1)
        return threshold && arenas
    }()

    /// Gives free heap pages back to the kernel so that they do not hide growth.
    static func trim() {
        ProcessAllocator.trim()
    }

    /// Resets the kernel's peak RSS (`VmHWM`) to the current RSS. False when
    /// `/proc/self/clear_refs` cannot be written (old kernel, locked-down container).
    static func resetPeak() -> Bool {
        #if canImport(Glibc)
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var five = UInt8(ascii: "5")
        return write(fd, &five, 1) == 1
        #else
        return false
        #endif
    }

    /// `VmRSS` and `VmHWM` in bytes, read from `/proc/self/status` into a
    /// caller-owned buffer so that reading allocates nothing.
    static func resident(using buffer: UnsafeMutableRawBufferPointer) -> (rssBytes: Int, peakBytes: Int)? {
        #if canImport(Glibc)
        let fd = open("/proc/self/status", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var length = 0
        while length < buffer.count {
            let n = read(fd, buffer.baseAddress! + length, buffer.count - length)
            if n <= 0 { break }
            length += n
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<length])
        guard let rss = kilobytes(after: "VmRSS:", in: bytes), let hwm = kilobytes(after: "VmHWM:", in: bytes) else {
            return nil
        }
        return (rss * 1024, hwm * 1024)
        #else
        return nil
        #endif
    }

    /// The process's peak resident memory (`VmHWM`) in bytes so far, 0 where
    /// there is no procfs. Reads `/proc/self/status` once (a few KiB).
    public static func peakResidentBytes() -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8192, alignment: 1)
        defer { buffer.deallocate() }
        return resident(using: buffer)?.peakBytes ?? 0
    }

    /// The number of kB on the line starting with `label` ("VmRSS:    2116 kB").
    static func kilobytes(after label: StaticString, in bytes: UnsafeRawBufferPointer) -> Int? {
        let labelBytes = UnsafeRawBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount)
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            if lineEnd - lineStart > labelBytes.count
                && zip(bytes[lineStart..<lineStart + labelBytes.count], labelBytes).allSatisfy({ $0 == $1 }) {
                var value = 0, seenDigit = false
                for byte in bytes[(lineStart + labelBytes.count)..<lineEnd] {
                    if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                        value = value * 10 + Int(byte - UInt8(ascii: "0"))
                        seenDigit = true
                    } else if seenDigit {
                        break
                    }
                }
                return seenDigit ? value : nil
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    /// Makes every page of every file mapped into the process resident now
    /// (the binary, the shared libraries), by reading one byte of each page,
    /// so that code first run during a measurement is not paged in inside it.
    /// Measured in fresh processes decoding one 4032x3024 JPEG: file-backed
    /// RSS grew 1.04-1.12 MB during the decode, differently each time; with
    /// every file page touched first, 0.60-0.66 MB (the rest is not explained
    /// here: no file is mapped during the decode). Costs one page fault per
    /// page not yet resident (the page cache usually has them: tens of ms).
    /// Only the part of each mapping that lies inside its file is touched.
    @discardableResult
    static func faultInMappedFiles() -> Int {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return 0 }
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var touched = 0
        var checksum: UInt8 = 0
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
            // MADV_POPULATE_READ (Linux 5.14+) maps every page in one call, without a fault per page
            // taken from here; where the kernel refuses it, each page is read below.
            if madvise(UnsafeMutableRawPointer(bitPattern: start), inFile - start, 22 /* MADV_POPULATE_READ */) == 0 {
                touched += (inFile - start) / pageSize
                continue
            }
            var address = start
            while address < inFile {
                checksum &+= UnsafeRawPointer(bitPattern: address)!.load(as: UInt8.self)
                touched += 1
                address += pageSize
            }
        }
        faultInChecksum = checksum
        return touched
    }

    /// Keeps the reads above from being optimised away.
    nonisolated(unsafe) private static var faultInChecksum: UInt8 = 0

    /// User + system CPU time of the whole process (all threads), in seconds.
    static func cpuSeconds() -> Double {
        #if canImport(Glibc)
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #else
        return 0
        #endif
    }
}
