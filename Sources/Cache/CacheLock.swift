import Foundation
import Synchronization

/// One process per cache directory: `flock` on `<root>/.lock`, not a PID check, so a crashed run never leaves a
/// stale lock, and a second `acquire` in the same process fails too (network file systems: LAYOUT.md).
public final class CacheLock: Sendable {
    /// nil once released, so a second release() never touches a descriptor number since reused.
    private let fd: Mutex<Int32?>
    let path: String

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// Throws `CacheError.locked` at once when held. A shard's lock is its own (`shards/I-of-N/.lock`):
    /// shards never block each other or the tree's lock.
    public static func acquire(root: String, shard: CacheShard? = nil) throws(CacheError) -> CacheLock {
        let layout = CacheLayout(root: root, shard: shard)
        try CacheFileStore.createDirectory(atPath: layout.stateDirectory)
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

    /// Calling it again, or letting the value go, is harmless.
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
