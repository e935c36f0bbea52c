import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exclusive use of one cache directory by one process: `flock(LOCK_EX|LOCK_NB)`
/// on `<root>/.lock`, which then holds the holder's PID for error messages.
///
/// `flock`, not a PID file check: the kernel drops the lock when the holder's
/// descriptor closes, including when the process dies, so a crashed cron run
/// never leaves a stale lock behind and no PID can be reused by mistake.
/// flock locks belong to an open file description, so a second `acquire` in
/// the same process fails too. (On network file systems flock may be local
/// to one machine; see LAYOUT.md.)
///
/// Released by `release()` or when the value is deinitialised; the PID is
/// erased first, so a stale PID never names the wrong holder.
public final class CacheLock: @unchecked Sendable {
    // @unchecked: the only mutable state, `fd`, is read and written under `mutex`.
    // The state is needed so a second release() cannot touch a descriptor
    // number the process has since reused for another file.
    private let mutex = NSLock()
    private var fd: Int32?
    /// Path of the lock file.
    public let path: String

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock on `root` (created when missing), or throws at once.
    /// - Throws: `CacheError.locked(path:holderPID:)` when another open of the
    ///   lock file holds it; `holderPID` is what the holder wrote, if anything.
    ///
    /// With a `shard`, the lock is that shard's own (`shards/I-of-N/.lock`):
    /// shards never block each other or the tree's lock, and one shard never
    /// runs twice at once.
    public static func acquire(root: String, shard: CacheShard? = nil) throws(CacheError) -> CacheLock {
        let layout = CacheLayout(root: root, shard: shard)
        do {
            try FileManager.default.createDirectory(atPath: layout.stateDirectory, withIntermediateDirectories: true)
        } catch {
            throw CacheError.fileSystem(operation: "create directory", path: layout.stateDirectory,
                                        errno: (error as NSError).underlyingPOSIXCode ?? EIO)
        }
        let path = layout.lockPath
        let fd = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw CacheError.system("open lock file", path: path, errno: errno) }
        guard retryingOnInterrupt({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 else {
            let code = errno
            let holder = code == EWOULDBLOCK ? readPID(fd) : nil
            close(fd)
            if code == EWOULDBLOCK { throw CacheError.locked(path: path, holderPID: holder) }
            throw CacheError.system("flock", path: path, errno: code)
        }
        // Best effort: the PID is for messages only; the lock is the flock itself.
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        return CacheLock(path: path, fd: fd)
    }

    /// Releases the lock. Calling it again, or letting the value go, is harmless.
    public func release() {
        mutex.withLock {
            guard let fd else { return }
            _ = ftruncate(fd, 0)
            _ = flock(fd, LOCK_UN)
            close(fd)
            self.fd = nil
        }
    }

    deinit { release() }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingWhitespace())
    }
}
