import Foundation

/// The one way a file is replaced: a new file with a unique name (`O_EXCL|O_NOFOLLOW`) written through a sink, fsynced,
/// renamed over the old one in the same directory, and the directory fsynced. A reader sees the old file or the whole
/// new one, a crash leaves one of the two, and a write that fails (or a producer that throws) leaves the old file and
/// no temp file. Two writers to one path both succeed; the last rename wins whole. Blocking: call it off the
/// cooperative pool (`BlockingWork.run`, the cache's thread pool). Memory: what the producer hands the sink at a time.
public enum AtomicFile {
    /// Replaces `path` with what `produce` writes to the sink. `permissions` nil: `0666` narrowed by the umask, as a new
    /// file gets; given, exactly those bits. `durable` false skips both fsyncs: still all or nothing for readers, but a
    /// crash may lose the new file (`warm thumbnail`, whose lost outputs the next run makes again; bench/findings.md
    /// section 7 has what an fsync per output cost it). Throws `AtomicFileError`, or what `produce` threw.
    public static func write(to path: String, permissions: mode_t? = nil, durable: Bool = true,
                             _ produce: (Sink) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        let directoryPath = url.deletingLastPathComponent().path, name = url.lastPathComponent
        var directory: Int32
        repeat { directory = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } while directory < 0 && errno == EINTR
        guard directory >= 0 else { throw AtomicFileError(operation: "open directory", path: directoryPath, code: errno) }
        defer { close(directory) }
        // Hidden and unique: a reader listing the directory skips it, and writers never share one.
        let temporary = ".\(name).\(UUID().uuidString.lowercased()).tmp"
        _ = try writeNewFile(named: temporary, in: directory, directoryPath: directoryPath, permissions: permissions,
                             durable: durable, produce)
        guard renameat(directory, temporary, directory, name) == 0 else {
            let code = errno
            unlinkat(directory, temporary, 0)
            throw AtomicFileError(operation: "rename", path: path, code: code)
        }
        guard !durable || fsync(directory) == 0 else {
            throw AtomicFileError(operation: "fsync directory", path: directoryPath, code: errno)
        }
    }

    /// `write(to:)` with bytes in hand.
    public static func write(_ data: Data, to path: String, permissions: mode_t? = nil,
                             durable: Bool = true) throws(AtomicFileError) {
        do {
            try write(to: path, permissions: permissions, durable: durable) { try $0.write(data) }
        } catch let error as AtomicFileError {
            throw error
        } catch {
            throw AtomicFileError(operation: "write", path: path, code: EIO)  // the sink throws only AtomicFileError
        }
    }

    /// The first half, for a caller that renames elsewhere (the cache installs from its `tmp/` into `v1/`): creates
    /// `name` in `directory` (`O_EXCL|O_NOFOLLOW`: an existing file or a planted link is an error, never a target),
    /// hands it to `produce`, fsyncs (when `durable`) and closes it. Returns its `fstat` after the fsync (a rename keeps
    /// the inode and modification time). Removes the file on any failure.
    public static func writeNewFile(named name: String, in directory: Int32, directoryPath: String,
                                    permissions: mode_t? = nil, durable: Bool = true,
                                    _ produce: (Sink) throws -> Void) throws -> stat {
        let path = directoryPath + "/" + name
        var fd: Int32
        repeat {
            fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions ?? 0o666)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw AtomicFileError(operation: "create", path: path, code: errno) }
        var info = stat()
        do {
            // The umask may have narrowed the mode; readers (web servers) need it exact when one is asked for.
            if let permissions { _ = fchmod(fd, permissions) }
            try produce(Sink(fd: fd, path: path))
            guard !durable || fsync(fd) == 0 else { throw AtomicFileError(operation: "fsync", path: path, code: errno) }
            guard fstat(fd, &info) == 0 else { throw AtomicFileError(operation: "fstat", path: path, code: errno) }
        } catch {
            close(fd)
            unlinkat(directory, name, 0)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlinkat(directory, name, 0)
            throw AtomicFileError(operation: "close", path: path, code: code)
        }
        return info
    }

    /// Where the producer writes; lives for one call of `produce`.
    public struct Sink {
        let fd: Int32
        let path: String

        /// All of `data` (Foundation's `FileHandle` retries short writes and `EINTR`).
        public func write(_ data: Data) throws(AtomicFileError) {
            do {
                try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
            } catch {
                throw AtomicFileError(operation: "write", path: path, code: AtomicFileError.posixCode(of: error))
            }
        }
    }
}

/// A system call of `AtomicFile` that failed: which, on what, and the errno.
public struct AtomicFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32

    public init(operation: String, path: String, code: Int32) {
        (self.operation, self.path, self.code) = (operation, path, code)
    }

    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    /// The errno behind a Foundation file error (EIO when there is none).
    static func posixCode(of error: any Error) -> Int32 {
        var error = error as NSError
        while error.domain != NSPOSIXErrorDomain {
            guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError else { return EIO }
            error = underlying
        }
        return Int32(error.code)
    }
}
