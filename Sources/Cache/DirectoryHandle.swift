import Foundation

/// An open directory; names below it go through `*at()` and `O_NOFOLLOW`, so a planted link is never followed out of
/// the tree and no path is re-resolved between check and use. Lives for one operation.
final class DirectoryHandle {
    let fd: Int32
    /// For error messages only: every access goes through `fd`.
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The root may itself be a link the operator chose (`/var/cache/warm -> /data/warm`), so it is followed.
    static func openDirectory(path: String) throws(CacheError) -> DirectoryHandle {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw CacheError.system("open directory", path: path, errno: errno) }
        return DirectoryHandle(fd: fd, path: path)
    }

    /// Creating it fsyncs the parent so the new entry survives a crash; throws `symlinkRefused` for a link.
    func child(_ name: String, create: Bool) throws(CacheError) -> DirectoryHandle {
        let childPath = path + "/" + name
        var created = false
        if create {
            if mkdirat(fd, name, 0o755) == 0 {
                created = true
            } else if errno != EEXIST {
                throw CacheError.system("mkdir", path: childPath, errno: errno)
            }
        }
        let childFD = retryingOnInterrupt { openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard childFD >= 0 else {
            let code = errno
            if code == ELOOP || code == ENOTDIR { throw CacheError.symlinkRefused(path: childPath) }
            throw CacheError.system("open directory", path: childPath, errno: code)
        }
        let child = DirectoryHandle(fd: childFD, path: childPath)
        if created {
            // mkdir honours the umask; the tree's modes are fixed, not inherited.
            _ = fchmod(childFD, 0o755)
            try sync()
        }
        return child
    }

    /// Makes renames, creations and removals inside this directory durable.
    func sync() throws(CacheError) {
        guard fsync(fd) == 0 else { throw CacheError.system("fsync directory", path: path, errno: errno) }
    }

    /// Reads a whole regular file through one descriptor opened without following a link,
    /// with its `fstat` taken from that descriptor; refuses a file over `maxBytes`.
    func readFile(_ name: String, maxBytes: Int = .max) throws(CacheError) -> (bytes: [UInt8], info: stat) {
        let filePath = path + "/" + name
        let fileFD = retryingOnInterrupt { openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fileFD >= 0 else { throw CacheError.system("open", path: filePath, errno: errno) }
        defer { close(fileFD) }
        var info = stat()
        guard fstat(fileFD, &info) == 0 else { throw CacheError.system("fstat", path: filePath, errno: errno) }
        guard info.isRegularFile else {
            throw CacheError.fileSystem(operation: "read (not a regular file)", path: filePath, errno: EINVAL)
        }
        let tooLarge = CacheError.fileSystem(operation: "read (larger than \(maxBytes) bytes)", path: filePath, errno: EFBIG)
        guard info.byteCount <= maxBytes else { throw tooLarge }
        // One byte more than fstat said, so that EOF is seen in the same read when the size held.
        var buffer = [UInt8](repeating: 0, count: info.byteCount + 1)
        var count = 0
        while true {
            if count == buffer.count {
                guard buffer.count <= maxBytes else { throw tooLarge }
                buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, maxBytes - buffer.count + 1)))
            }
            let got = buffer.withUnsafeMutableBytes { read(fileFD, $0.baseAddress! + count, $0.count - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw CacheError.system("read", path: filePath, errno: errno)
            }
            if got == 0 { break }
            count += got
        }
        buffer.removeLast(buffer.count - count)
        return (buffer, info)
    }

    /// `renameat(2)`: atomically replaces `newName` in `destination`. A link
    /// already at `newName` is replaced itself, not followed.
    func rename(_ name: String, to destination: DirectoryHandle, as newName: String) throws(CacheError) {
        guard renameat(fd, name, destination.fd, newName) == 0 else {
            throw CacheError.system("rename", path: path + "/" + name + " to " + destination.path + "/" + newName, errno: errno)
        }
    }

    /// Makes a file's bytes durable (before the rename that publishes it).
    func syncFile(_ name: String) throws(CacheError) {
        let fileFD = retryingOnInterrupt { openat(fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fileFD >= 0 else { throw CacheError.system("open", path: path + "/" + name, errno: errno) }
        defer { close(fileFD) }
        guard fsync(fileFD) == 0 else { throw CacheError.system("fsync", path: path + "/" + name, errno: errno) }
    }

    /// `symlinkat(2)`: a new link `name` whose text is `target`; fails if `name` exists.
    func makeSymbolicLink(_ name: String, to target: String) throws(CacheError) {
        guard symlinkat(target, fd, name) == 0 else { throw CacheError.system("symlink", path: path + "/" + name, errno: errno) }
    }

    /// Removes a file (or link); returns false when there was nothing to remove.
    @discardableResult
    func removeFile(_ name: String) throws(CacheError) -> Bool {
        if unlinkat(fd, name, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw CacheError.system("unlink", path: path + "/" + name, errno: errno)
    }

    /// `lstat` of a name in this directory; nil when it does not exist.
    func status(_ name: String) -> stat? {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return info
    }

    func entryNames() throws(CacheError) -> [String] {
        // fdopendir takes ownership of the descriptor it is given, so it gets a duplicate.
        let listFD = dup(fd)
        guard listFD >= 0, let stream = fdopendir(listFD) else {
            let code = errno
            if listFD >= 0 { close(listFD) }
            throw CacheError.system("list directory", path: path, errno: code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension stat {
    var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
    var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    var byteCount: Int { Int(st_size) }
}

/// Repeats a system call that was interrupted by a signal before doing anything.
@inline(__always)
func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
    var result: Int32
    repeat { result = call() } while result < 0 && errno == EINTR
    return result
}
