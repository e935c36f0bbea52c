import Foundation
import WarmSupport

/// The file half of the cache (temp files, atomic installs, removal; no manifest). Every path below the root is
/// reached through `DirectoryHandle`, never re-resolved by a following `open(2)`.
struct CacheFileStore: Sendable {
    let layout: CacheLayout
    let faults: FaultInjector?

    /// Fixed, umask-independent modes: thumbnails are served by other processes.
    static let filePermissions: mode_t = 0o644

    func createDirectories() throws(CacheError) {
        try Self.createDirectory(atPath: layout.root)
        _ = try DirectoryHandle.openDirectory(path: layout.root).child(CacheLayout.versionDirectory, create: true)
        _ = try temporaryDirectory(create: true)
    }

    /// With its parents, as the operator's path may name a directory not made yet.
    static func createDirectory(atPath path: String) throws(CacheError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw CacheError.fileSystem(operation: "create directory", path: path,
                                        errno: (error as NSError).underlyingPOSIXCode ?? EIO)
        }
    }

    /// Throws the errno the fault injector gives for `point`: a simulated failure, or a crash, there.
    func failIfInjected(_ point: FaultPoint, path: String) throws(CacheError) {
        if let code = faults?(point) { throw .system("\(point.rawValue) (simulated failure)", path: path, errno: code) }
    }

    // MARK: - Writing

    /// Writes and fsyncs a new `tmp/<random>.tmp` (`AtomicFile.writeNewFile`: `O_EXCL|O_NOFOLLOW`), so after the rename
    /// the file is complete on disk; removed on failure. Returns its name and its `fstat` after the fsync (`rename` keeps
    /// the inode and modification time, so these are the installed file's).
    func writeTemporaryFile(_ data: Data) throws(CacheError) -> (name: String, info: stat) {
        let tmp = try temporaryDirectory()
        let name = UUID().uuidString.lowercased() + ".tmp"
        do {
            let info = try AtomicFile.writeNewFile(named: name, in: tmp.fd, directoryPath: tmp.path,
                                                   permissions: Self.filePermissions) { sink in
                if let injected = faults?(.temporaryWrite) {
                    throw AtomicFileError(operation: "write", path: tmp.path + "/" + name, code: injected)
                }
                try sink.write(data)
            }
            return (name, info)
        } catch let error as AtomicFileError {
            throw .system(error.operation, path: error.path, errno: error.code)
        } catch {
            throw .system("write", path: tmp.path + "/" + name, errno: EIO)  // the producer throws only AtomicFileError
        }
    }

    /// Renames a finished temp file over a manifest-relative path, creating its two directory levels when missing (a
    /// new level's parent is fsynced); atomic, but not durable until the caller syncs the directory returned.
    func install(temporaryName: String, at relativePath: String) throws(CacheError) -> DirectoryHandle {
        let (outer, inner, name) = try components(of: relativePath)
        let directory = try filesDirectory().child(outer, create: true).child(inner, create: true)
        try failIfInjected(.install, path: layout.absolutePath(relative: relativePath))
        try temporaryDirectory().rename(temporaryName, to: directory, as: name)
        return directory
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

    /// Reads a whole regular file without following links; refuses one over `maxBytes`.
    func readFile(relativePath: String, maxBytes: Int = .max) throws(CacheError) -> (bytes: [UInt8], info: stat) {
        guard let (directory, name) = try parentDirectory(of: relativePath) else {
            throw CacheError.fileSystem(operation: "open", path: layout.absolutePath(relative: relativePath), errno: ENOENT)
        }
        return try directory.readFile(name, maxBytes: maxBytes)
    }

    /// Manifest-relative paths of everything at file depth under `v1/`, plus non-directories where a directory
    /// belongs. Links are listed, never followed.
    func allFilePaths() throws(CacheError) -> [String] {
        try paths(in: filesDirectory(), prefix: CacheLayout.versionDirectory, directoryLevels: 2).sorted()
    }

    private func paths(in directory: DirectoryHandle, prefix: String, directoryLevels: Int) throws(CacheError) -> [String] {
        var paths: [String] = []
        for name in try directory.entryNames() {
            guard directoryLevels > 0, let info = directory.status(name), info.isDirectory else {
                paths.append(prefix + "/" + name)
                continue
            }
            paths += try self.paths(in: directory.child(name, create: false), prefix: prefix + "/" + name,
                                    directoryLevels: directoryLevels - 1)
        }
        return paths
    }

    // MARK: - Directories

    /// `tmp/` of this layout's state directory (a shard's own under `shards/I-of-N/`):
    /// on the same file system as `v1/`, so the install stays one atomic rename.
    private func temporaryDirectory(create: Bool = false) throws(CacheError) -> DirectoryHandle {
        var directory = try DirectoryHandle.openDirectory(path: layout.root)
        for name in layout.stateComponents + ["tmp"] { directory = try directory.child(name, create: create) }
        return directory
    }

    private func filesDirectory() throws(CacheError) -> DirectoryHandle {
        try DirectoryHandle.openDirectory(path: layout.root).child(CacheLayout.versionDirectory, create: false)
    }

    /// nil when a directory on the way is missing.
    private func parentDirectory(of relativePath: String) throws(CacheError) -> (DirectoryHandle, String)? {
        let (outer, inner, name) = try components(of: relativePath)
        do throws(CacheError) {
            return (try filesDirectory().child(outer, create: false).child(inner, create: false), name)
        } catch CacheError.fileSystem(_, _, let code) where code == ENOENT {
            return nil
        }
    }

    /// Only `v1/<dir>/<dir>/<name>` with plain names is accepted, so a tampered manifest row cannot point
    /// eviction or verification outside the tree.
    private func components(of relativePath: String) throws(CacheError) -> (String, String, String) {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == CacheLayout.versionDirectory,
              parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw CacheError.fileSystem(operation: "resolve manifest path", path: layout.absolutePath(relative: relativePath), errno: EINVAL)
        }
        return (parts[1], parts[2], parts[3])
    }
}

extension NSError {
    /// The errno behind a Foundation file error, when there is one.
    var underlyingPOSIXCode: Int32? {
        if domain == NSPOSIXErrorDomain { return Int32(code) }
        return (userInfo[NSUnderlyingErrorKey] as? NSError)?.underlyingPOSIXCode
    }
}
