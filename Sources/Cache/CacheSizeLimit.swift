import Foundation

/// `--max-cache-size`: a number of bytes, or a share of the file system holding the cache directory (`85%`), turned
/// into bytes with `statvfs` when the run or merge starts, so a larger volume is used without editing a manifest.
public enum CacheSizeLimit: Sendable, Hashable {
    case bytes(Int)
    /// Of the volume's total size; more than 0, at most 1.
    case shareOfVolume(Double)

    /// The limit for a cache at `directory` (which may not exist yet: its nearest existing parent's file system).
    public func bytes(forCacheAt directory: String) throws(CacheError) -> Int {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .shareOfVolume(let share):
            return Int((Double(try Self.volumeBytes(containing: directory)) * share).rounded(.down))
        }
    }

    /// Total size of the file system holding `path` (`f_blocks * f_frsize`: used and free, not what is free now), or
    /// holding its nearest existing parent.
    static func volumeBytes(containing path: String) throws(CacheError) -> Int {
        var candidate = CacheLayout(root: path).root
        while true {
            var info = statvfs()
            if statvfs(candidate, &info) == 0 { return Int(info.f_blocks) * Int(info.f_frsize) }
            let code = errno
            guard code == ENOENT, candidate != "/" else {
                throw .fileSystem(operation: "read the size of the file system (statvfs)", path: candidate, errno: code)
            }
            candidate = (candidate as NSString).deletingLastPathComponent
        }
    }
}
