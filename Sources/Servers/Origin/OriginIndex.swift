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
/// changes (checked every `refreshIntervalMilliseconds`), and the bodies most recently sent, up to `hotSetBytes`.
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
    }

    private struct State {
        var snapshot = Snapshot()
        var reader: CacheReader?
        var readerInode: UInt64 = 0
        var hot: [String: Body] = [:]
        var hotBytes = 0
        var manifest: OriginManifestBody?
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

    /// Blocks (SQLite, `stat`): opens the manifest once it exists (again when it was replaced), and reloads the rows
    /// when another connection has committed since the last load. Throws what kept it from reading the manifest.
    func refresh() throws(CacheError) {
        let layout = CacheLayout(root: root)
        var info = stat()
        guard stat(layout.manifestPath, &info) == 0 else {
            let old = state.withLock { state in
                defer { state = State() }
                return state.reader
            }
            try? old?.close()
            return
        }
        let (current, inode) = state.withLock { ($0.reader, $0.readerInode) }
        var reader = current
        if reader == nil || inode != UInt64(info.st_ino) {
            try? current?.close()
            do throws(CacheError) {
                reader = try CacheReader.open(root: root, readerCount: readerCount)
            } catch {
                state.withLock { state in
                    (state.reader, state.snapshot) = (nil, Snapshot(status: .unreadable(error.description)))
                }
                throw error
            }
            state.withLock { state in
                (state.reader, state.readerInode, state.snapshot.version) = (reader, UInt64(info.st_ino), nil)
            }
        }
        try reload(from: reader!)
    }

    private func reload(from reader: CacheReader) throws(CacheError) {
        let version = try reader.dataVersion()
        guard version != snapshot.version || snapshot.status != .ready else { return }
        var filesByURL: [String: [ServedFile]] = [:]
        var paths: [String: FileValidators?] = [:]
        for file in try reader.servedFiles() {
            filesByURL[file.url.text, default: []].append(file)
            paths[file.relativePath] = file.validators
        }
        for key in filesByURL.keys {
            filesByURL[key]!.sort { Self.preference($0.variant) < Self.preference($1.variant) }
        }
        state.withLock { state in
            state.snapshot = Snapshot(status: .ready, version: version, filesByURL: filesByURL)
            // Bodies of files evicted or rewritten since go now, not when the budget pushes them out.
            state.hot = state.hot.filter { path, body in paths[path].map { $0 == body.validators } ?? false }
            state.hotBytes = state.hot.values.reduce(0) { $0 + $1.buffer.readableBytes }
        }
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

    func close() {
        let reader = state.withLock { state in
            defer { state = State() }
            return state.reader
        }
        try? reader?.close()
    }
}
