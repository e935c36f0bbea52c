import Cache
import Foundation
import Hummingbird
import Logging
import Synchronization
import NIOCore
import NIOHTTP1
import WarmSupport

/// The origin's in-memory view of the manifest, so a request runs no SQLite query and, for a file in the hot set, no
/// system call: the rows that name files (keys, paths, validators), reloaded whole when the manifest's `data_version`
/// changes or the manifest is replaced by another file (checked every `refreshIntervalMilliseconds`; one that cannot
/// be read leaves the last good rows in place), and the bodies most recently sent, up to `hotSetBytes`.
/// The manifest read is the published snapshot when the tree has one (`PublishedManifest`: what origins on other hosts
/// than the merge read, immutable), else the tree's `manifest.sqlite` (one host: its writer and the origin share WAL).
/// A stale index never sends a mismatched body: a body is kept with the validators it was checked against, and a file
/// read from disk is checked against them on its open descriptor (`Origin.load`). Memory: the index holds each served
/// row's URL, variant, path and validators; the hot set at most `hotSetBytes` of thumbnails.
final class OriginIndex: Sendable {
    enum Status: Sendable, Equatable {
        case noManifest
        case unreadable(String)
        case ready
    }

    /// One body as sent, with the headers of its 200 made once (a hot body's request formats no header of its own).
    struct Body: Sendable {
        var validators: FileValidators?
        var etag: String
        var modifiedAtSeconds: Int
        var buffer: ByteBuffer
        /// `ETag`, `Last-Modified`, `Cache-Control`, `Content-Type`, `Content-Length`, in NIO's type: what
        /// `ThumbnailChannelHandler` writes.
        var headers: HTTPHeaders

        init(validators: FileValidators?, etag: String, modifiedAtSeconds: Int, contentType: String, cacheControl: String,
             buffer: ByteBuffer) {
            (self.validators, self.etag, self.modifiedAtSeconds, self.buffer) = (validators, etag, modifiedAtSeconds, buffer)
            headers = [
                "ETag": etag,
                "Last-Modified": HTTPDateText.format(secondsSince1970: modifiedAtSeconds),
                "Cache-Control": cacheControl,
                "Content-Type": contentType,
                "Content-Length": String(buffer.readableBytes),
            ]
        }
    }

    struct Snapshot: Sendable {
        var status: Status = .noManifest
        var version: Int?
        /// By canonical URL text, variants in preferred format order.
        var filesByURL: [String: [ServedFile]] = [:]
        var fileCount = 0
        /// When these rows were read (Unix seconds); nil before the first load.
        var loadedAtSeconds: Double?
    }

    private struct State {
        var snapshot = Snapshot()
        var reader: CacheReader?
        /// The file the reader has open and its inode: a new snapshot, or a manifest replaced by rename, is another.
        var readerSource = Source(path: "", inode: 0)
        var hot: [String: Body] = [:]
        var hotBytes = 0
        var manifest: OriginManifestBody?
        /// Why the newest manifest could not be opened or read, while the index is the last good one.
        var reloadFailure: String?
        /// The reader replaced last, closed at the next replacement (`install`).
        var retiredReader: CacheReader?
    }

    let root: String
    let hotSetBytes: Int
    private let readerCount: Int
    private let state = Mutex(State())

    init(root: String, readerCount: Int, hotSetBytes: Int) {
        self.root = root
        self.readerCount = readerCount
        self.hotSetBytes = hotSetBytes
    }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }
    var reader: CacheReader? { state.withLock { $0.reader } }
    /// Why the last refresh could not read the manifest; nil when it did.
    var reloadFailure: String? { state.withLock { $0.reloadFailure } }

    /// A manifest file as one refresh found it.
    struct Source: Equatable {
        var path: String
        var inode: UInt64
        var isSnapshot = false
    }

    /// Blocks (SQLite, `stat`): opens the manifest once it exists (again when it was replaced or a new snapshot was
    /// published), and reloads the rows when another connection has committed since the last load. A manifest that
    /// cannot be opened or read once the index has loaded keeps the last good index, reader and hot set in place
    /// (`reloadFailure` says why, and every refresh tries again), so replicas stay ready on a bad publish; before the
    /// first load, the status says why. A tree manifest that is gone, with nothing published, empties the index.
    /// Throws what kept it from reading the manifest.
    func refresh() throws(CacheError) {
        do throws(CacheError) {
            guard let source = try Self.source(root: root) else {
                // With `published/` present a merge is publishing its first snapshot: keep what is loaded until then.
                if !FileManager.default.fileExists(atPath: PublishedManifest(root: root).directory) { close() }
                return
            }
            try reload(source)
            state.withLock { $0.reloadFailure = nil }
        } catch {
            state.withLock { state in
                state.reloadFailure = error.description
                if state.snapshot.status != .ready { state.snapshot = Snapshot(status: .unreadable(error.description)) }
            }
            throw error
        }
    }

    /// The published snapshot the pointer names when there is one (it must exist: a pointer to nothing is a failed
    /// publish, not an empty cache), else the tree's manifest; nil when neither exists, or when `published/` exists
    /// without a pointer yet: a tree that publishes is never read through its live manifest, whose writer (the merge)
    /// may be on another host.
    private static func source(root: String) throws(CacheError) -> Source? {
        var info = stat()
        let published = PublishedManifest(root: root)
        if let snapshot = try published.currentSnapshotPath() {
            guard stat(snapshot, &info) == 0 else { throw .fileSystem(operation: "open the published manifest", path: snapshot, errno: errno) }
            return Source(path: snapshot, inode: UInt64(info.st_ino), isSnapshot: true)
        }
        guard !FileManager.default.fileExists(atPath: published.directory) else { return nil }
        let manifest = CacheLayout(root: root).manifestPath
        guard stat(manifest, &info) == 0 else { return nil }
        return Source(path: manifest, inode: UInt64(info.st_ino))
    }

    /// Reads the rows again when `source` is a new file or has changed since the last load, and only then swaps the
    /// reader and the rows in (a new file's reader replaces the old one once its rows are read).
    private func reload(_ source: Source) throws(CacheError) {
        let (current, currentSource, loadedVersion) = state.withLock { ($0.reader, $0.readerSource, $0.snapshot.version) }
        if let current, currentSource == source {
            let version = try current.dataVersion()
            guard version != loadedVersion else { return }
            install(try Self.rows(of: current, version: version), reader: current, source: source)
            return
        }
        let opened = source.isSnapshot
            ? try CacheReader.openSnapshot(root: root, path: source.path, readerCount: readerCount)
            : try CacheReader.open(root: root, readerCount: readerCount)
        let snapshot: Snapshot
        do throws(CacheError) {
            snapshot = try Self.rows(of: opened, version: try opened.dataVersion())
        } catch {
            try? opened.close()
            throw error
        }
        install(snapshot, reader: opened, source: source)
    }

    /// Blocks: every row that names a file, by URL, variants in preferred order.
    private static func rows(of reader: CacheReader, version: Int) throws(CacheError) -> Snapshot {
        var filesByURL: [String: [ServedFile]] = [:]
        var fileCount = 0
        for file in try reader.servedFiles() {
            filesByURL[file.url.text, default: []].append(file)
            fileCount += 1
        }
        for key in filesByURL.keys {
            filesByURL[key]!.sort { preference($0.variant) < preference($1.variant) }
        }
        return Snapshot(status: .ready, version: version, filesByURL: filesByURL, fileCount: fileCount,
                        loadedAtSeconds: Date().timeIntervalSince1970)
    }

    /// A replaced reader is closed one replacement later, not now: a request on the origin's threads may still be
    /// reading through it (`Origin.load`), and a new manifest comes at most once per refresh interval.
    private func install(_ snapshot: Snapshot, reader: CacheReader, source: Source) {
        var validatorsByPath: [String: FileValidators?] = [:]
        for files in snapshot.filesByURL.values {
            for file in files { validatorsByPath[file.relativePath] = file.validators }
        }
        let closing = state.withLock { state -> CacheReader? in
            var closing: CacheReader?
            if let old = state.reader, old !== reader {
                (closing, state.retiredReader) = (state.retiredReader, old)
                // `data_version` counts per connection: the new reader's may equal the version of the kept body.
                state.manifest = nil
            }
            (state.snapshot, state.reader, state.readerSource) = (snapshot, reader, source)
            // Bodies of files evicted or rewritten since go now, not when the budget pushes them out.
            state.hot = state.hot.filter { path, body in validatorsByPath[path].map { $0 == body.validators } ?? false }
            state.hotBytes = state.hot.values.reduce(0) { $0 + $1.buffer.readableBytes }
            return closing
        }
        try? closing?.close()
    }

    private static func preference(_ variant: CacheVariant) -> (Int, Int) { (variant.longestSide, variant.format.preferenceRank) }

    /// The body sent last for `file`, if it is still the file the index describes.
    func hotBody(for file: ServedFile) -> Body? {
        guard let validators = file.validators else { return nil }
        return state.withLock { state in
            state.hot[file.relativePath].flatMap { $0.validators == validators ? $0 : nil }
        }
    }

    /// Keeps a checked body; beyond the budget, others make room (in no particular order: a set larger than the
    /// budget is read from the page cache for the rest).
    func remember(_ body: Body, for file: ServedFile) {
        let size = body.buffer.readableBytes
        guard body.validators != nil, size <= hotSetBytes else { return }
        state.withLock { state in
            if let old = state.hot.removeValue(forKey: file.relativePath) { state.hotBytes -= old.buffer.readableBytes }
            while state.hotBytes + size > hotSetBytes, let victim = state.hot.first {
                state.hot.removeValue(forKey: victim.key)
                state.hotBytes -= victim.value.buffer.readableBytes
            }
            state.hot[file.relativePath] = body
            state.hotBytes += size
        }
    }

    /// The compressed app manifest of `version`, or nil when it must be made again.
    func manifestBody(version: Int) -> OriginManifestBody? {
        state.withLock { $0.manifest?.version == version ? $0.manifest : nil }
    }

    func rememberManifest(_ body: OriginManifestBody) {
        state.withLock { $0.manifest = body }
    }

    /// Empties the index and closes its readers.
    func close() {
        let readers = state.withLock { state in
            defer { state = State() }
            return [state.reader, state.retiredReader]
        }
        for reader in readers { try? reader?.close() }
    }
}
