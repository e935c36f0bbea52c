import Foundation
import Synchronization

/// Exclusive use of one cache directory by one process: `flock(LOCK_EX|LOCK_NB)`
/// on `<root>/.lock`, which then holds the holder's PID for error messages.
///
/// `flock`, not a PID file check: the kernel drops the lock when the holder's
/// descriptor closes, including when the process dies, so a crashed cron run
/// never leaves a stale lock behind. flock locks belong to an open file
/// description, so a second `acquire` in the same process fails too (on network
/// file systems flock may be local to one machine; see LAYOUT.md).
/// Released by `release()` or `deinit`; the PID is erased first.
public final class CacheLock: Sendable {
    /// nil once released, so a second release() never touches a descriptor number since reused.
    private let fd: Mutex<Int32?>
    public let path: String

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// Takes the lock on `root` (created when missing), or throws at once
    /// `CacheError.locked(path:holderPID:)`, with the PID the holder wrote, if any.
    /// With a `shard`, the lock is that shard's own (`shards/I-of-N/.lock`):
    /// shards never block each other or the tree's lock.
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
        fd.withLock { fd in
            guard let descriptor = fd else { return }
            _ = ftruncate(descriptor, 0)
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            fd = nil
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
