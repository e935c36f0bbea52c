import Foundation

/// Why a cache operation failed, naming the path or URL; `reasonCode` is a stable token for reports and exit codes.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(url: String, reason: String)
    case invalidVariant(name: String)
    case locked(path: String, holderPID: Int32?)
    /// The disk (or quota, or the manifest) is full: the pipeline should stop writing.
    case diskFull(path: String)
    case symlinkRefused(path: String)
    /// A system call failed; `operation` is what was attempted ("rename", "fsync").
    case fileSystem(operation: String, path: String, errno: Int32)
    case database(path: String, reason: String)
    case closed(path: String)
    /// Not a readable SQLite database (corrupt, truncated, a directory): `warm run` moves it aside.
    case manifestBroken(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "the URL \(url) cannot be cached: \(reason)"
        case .invalidVariant(let name):
            return "the variant \"\(name)\" does not name a positive size"
        case .locked(let path, let holderPID):
            let holder = holderPID.map { "process \($0)" } ?? "another process"
            return "the cache is in use: \(holder) holds the lock \(path)"
        case .diskFull(let path):
            return "the disk is full while writing \(path)"
        case .symlinkRefused(let path):
            return "\(path) is a symbolic link or not a directory; the cache does not follow links out of its tree"
        case .fileSystem(let operation, let path, let code):
            return "\(operation) failed for \(path): \(String(cString: strerror(code)))"
        case .database(let path, let reason):
            return "the cache manifest \(path) failed: \(reason)"
        case .closed(let path):
            return "the cache at \(path) is closed"
        case .manifestBroken(let path, let reason):
            return "the cache manifest \(path) is broken (\(reason)); the next `warm run` on this cache directory moves it aside and rebuilds it"
        }
    }

    public var reasonCode: String {
        switch self {
        case .invalidURL: return "invalid-url"
        case .invalidVariant: return "invalid-variant"
        case .locked: return "locked"
        case .diskFull: return "disk-full"
        case .symlinkRefused: return "symlink-refused"
        case .fileSystem: return "file-system"
        case .database: return "database"
        case .closed: return "closed"
        case .manifestBroken: return "manifest-broken"
        }
    }

    /// Keeps a full disk distinct so the pipeline can stop early instead of failing every remaining image.
    static func system(_ operation: String, path: String, errno code: Int32) -> CacheError {
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        return .fileSystem(operation: operation, path: path, errno: code)
    }
}
