import SystemPackage

/// Why a child process could not be started.
public enum SpawnError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `posix_spawn` (or a pipe for it) failed with `errno`.
    case cannotStart(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .cannotStart(let path, let code): "cannot start \(path): \(Errno(rawValue: code))"
        }
    }
}
