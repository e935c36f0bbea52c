import Foundation
import SystemPackage

/// The file half of the cache (temp files, atomic installs, removal; no manifest). Every path below the root is
/// reached through `DirectoryHandle`, never re-resolved by a following `open(2)`.
struct CacheFileStore: Sendable {
    let layout: CacheLayout
    let faults: FaultInjector?

    /// Fixed, umask-independent modes: thumbnails are served by other processes.
    static let filePermissions: mode_t = 0o644

    func createDirectories() throws(CacheError) {
        do {
            try FileManager.default.createDirectory(atPath: layout.root, withIntermediateDirectories: true)
        } catch {
            throw CacheError.fileSystem(operation: "create directory", path: layout.root,
                                        errno: (error as NSError).underlyingPOSIXCode ?? EIO)
        }
        let root = try DirectoryHandle.openDirectory(path: layout.root)
        _ = try root.child(CacheLayout.versionDirectory, create: true)
        var state = root
        for name in layout.stateComponents { state = try state.child(name, create: true) }
        _ = try state.child("tmp", create: true)
    }

    /// Throws the errno the fault injector gives for `point`: a simulated failure, or a crash, there.
    func failIfInjected(_ point: FaultPoint, path: String) throws(CacheError) {
        if let code = faults?(point) { throw .system("\(point.rawValue) (simulated failure)", path: path, errno: code) }
    }

    // MARK: - Writing

    /// Writes and fsyncs a new `tmp/<random>.tmp` (`O_EXCL|O_NOFOLLOW`), so after the rename the file is complete
    /// on disk; removed on failure. Returns its name.
    func writeTemporaryFile(_ data: Data) throws(CacheError) -> String {
        let tmp = try temporaryDirectory()
        let name = UUID().uuidString.lowercased() + ".tmp"
        let tempPath = tmp.path + "/" + name
        let fd = try tmp.createFile(name, permissions: Self.filePermissions)
        var failure: CacheError?
        if let injected = faults?(.temporaryWrite) {
            failure = .system("write", path: tempPath, errno: injected)
        } else {
            do {
                _ = try FileDescriptor(rawValue: fd).writeAll(data)  // retries EINTR and short writes
            } catch {
                failure = .system("write", path: tempPath, errno: (error as? Errno)?.rawValue ?? EIO)
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = .system("fsync", path: tempPath, errno: errno) }
        if close(fd) != 0 && failure == nil { failure = .system("close", path: tempPath, errno: errno) }
        if let failure {
            _ = try? tmp.removeFile(name)
            throw failure
        }
        return name
    }

    /// The directory that receives `location`, creating its two levels when
    /// missing (a new level's parent is fsynced, so the entry survives a crash).
    func directory(for location: FileLocation) throws(CacheError) -> DirectoryHandle {
        try filesDirectory()
            .child(location.outerDirectory, create: true)
            .child(location.innerDirectory, create: true)
    }

    /// Renames a finished temp file over `location` in `directory` (from `directory(for:)`):
    /// atomic, but not durable until the caller syncs `directory`.
    func install(temporaryName: String, into directory: DirectoryHandle, at location: FileLocation) throws(CacheError) {
        try temporaryDirectory().rename(temporaryName, to: directory, as: location.fileName)
    }

    func removeTemporaryFile(_ name: String) {
        _ = try? temporaryDirectory().removeFile(name)
    }

    /// Removes crash leftovers in `tmp/`; what cannot be removed (a directory) is left for `verify` to list
    /// rather than making the cache unusable.
    func removeAllTemporaryFiles() throws(CacheError) -> [String] {
        let tmp = try temporaryDirectory()
        let removed = try tmp.entryNames().filter { (try? tmp.removeFile($0)) == true }.sorted()
        if !removed.isEmpty { try tmp.sync() }
        return removed
    }

    func temporaryFileNames() throws(CacheError) -> [String] {
        try temporaryDirectory().entryNames().sorted()
    }

    // MARK: - Reading and removing by manifest path

    /// Removes the file at a manifest-relative path; false when it was already gone.
    @discardableResult
    func removeFile(relativePath: String) throws(CacheError) -> Bool {
        guard let (directory, name) = try parentDirectory(of: relativePath) else { return false }
        let removed = try directory.removeFile(name)
        if removed { try directory.sync() }
        return removed
    }

    /// `lstat` of a manifest-relative path; nil when it (or a directory on the way) is missing.
    func status(relativePath: String) -> stat? {
        guard let (directory, name) = try? parentDirectory(of: relativePath) else { return nil }
        return directory.status(name)
    }

    /// Reads a whole regular file without following links.
    func readFile(relativePath: String) throws(CacheError) -> [UInt8] {
        guard let (directory, name) = try parentDirectory(of: relativePath) else {
            throw CacheError.fileSystem(operation: "open", path: layout.absolutePath(relative: relativePath), errno: ENOENT)
        }
        return try directory.readFile(name).bytes
    }

    /// Manifest-relative paths of everything at file depth under `v1/`, plus non-directories where a directory
    /// belongs. Links are listed, never followed.
    func allFilePaths() throws(CacheError) -> [String] {
        let version = CacheLayout.versionDirectory
        let files = try filesDirectory()
        var paths: [String] = []
        for outer in try files.entryNames() {
            guard let info = files.status(outer), info.isDirectory else {
                paths.append("\(version)/\(outer)")
                continue
            }
            let outerHandle = try files.child(outer, create: false)
            for inner in try outerHandle.entryNames() {
                guard let info = outerHandle.status(inner), info.isDirectory else {
                    paths.append("\(version)/\(outer)/\(inner)")
                    continue
                }
                let innerHandle = try outerHandle.child(inner, create: false)
                for name in try innerHandle.entryNames() {
                    paths.append("\(version)/\(outer)/\(inner)/\(name)")
                }
            }
        }
        return paths.sorted()
    }

    // MARK: - Directories

    /// `tmp/` of this layout's state directory (a shard's own under `shards/I-of-N/`):
    /// on the same file system as `v1/`, so the install stays one atomic rename.
    private func temporaryDirectory() throws(CacheError) -> DirectoryHandle {
        var state = try DirectoryHandle.openDirectory(path: layout.root)
        for name in layout.stateComponents { state = try state.child(name, create: false) }
        return try state.child("tmp", create: false)
    }

    private func filesDirectory() throws(CacheError) -> DirectoryHandle {
        try DirectoryHandle.openDirectory(path: layout.root).child(CacheLayout.versionDirectory, create: false)
    }

    /// Only `v1/<dir>/<dir>/<name>` with plain names is accepted, so a tampered manifest row cannot point
    /// eviction or verification outside the tree. nil when a directory on the way is missing.
    private func parentDirectory(of relativePath: String) throws(CacheError) -> (DirectoryHandle, String)? {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == CacheLayout.versionDirectory,
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw CacheError.fileSystem(operation: "resolve manifest path", path: layout.absolutePath(relative: relativePath), errno: EINVAL)
        }
        do throws(CacheError) {
            let directory = try filesDirectory().child(parts[1], create: false).child(parts[2], create: false)
            return (directory, parts[3])
        } catch CacheError.fileSystem(_, _, let code) where code == ENOENT {
            return nil
        }
    }
}

extension NSError {
    /// The errno behind a Foundation file error, when there is one.
    var underlyingPOSIXCode: Int32? {
        if domain == NSPOSIXErrorDomain { return Int32(code) }
        return (userInfo[NSUnderlyingErrorKey] as? NSError)?.underlyingPOSIXCode
    }
}
