import Foundation
import Synchronization

/// Space a run sets aside on the cache volume when it starts (`<state directory>/.summary-reserve`, allocated with
/// `posix_fallocate`, so the blocks are the file's and not a sparse promise) and gives back right before it writes its
/// summary: a run that filled the disk still says so in `last-run.json`. Costs `bytes` of the volume while a run holds
/// the lock; a file left by a killed run is reused (its blocks are already allocated), never counted as cache content.
public final class SpaceReserve: Sendable {
    static let fileName = ".summary-reserve"
    /// Room for a summary (it lists at most 100 failed images) and the Prometheus file, each written beside the old one
    /// before the rename; when even that does not fit, `SummaryFile` removes the stale summary instead.
    public static let defaultBytes = 256 * 1024

    let path: String
    /// false once released, so a second release never removes a file another run reserved since.
    private let held: Mutex<Bool>

    private init(path: String) {
        self.path = path
        held = Mutex(true)
    }

    /// Throws `.diskFull` when the volume has less than `bytes` free (a partial reservation is removed).
    public static func reserve(in layout: CacheLayout, bytes: Int = defaultBytes) throws(CacheError) -> SpaceReserve {
        let path = layout.stateDirectory + "/" + fileName
        let fd = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw CacheError.system("create the summary's space reserve", path: path, errno: errno) }
        defer { close(fd) }
        // Returns the error number itself; glibc writes zeros where the file system has no fallocate.
        let code = posix_fallocate(fd, 0, off_t(bytes))
        guard code == 0 else {
            unlink(path)
            throw CacheError.system("reserve \(bytes) bytes for the summary", path: path, errno: code)
        }
        return SpaceReserve(path: path)
    }

    /// Frees the space (idempotent).
    public func release() {
        let first = held.withLock { held in
            defer { held = false }
            return held
        }
        if first { unlink(path) }
    }
}
