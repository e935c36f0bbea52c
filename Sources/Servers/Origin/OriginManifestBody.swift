import Cache
import CompressNIO
import NIOCore
import WarmSupport

/// `GET /v1/manifest`'s body: the app manifest (`warm cache export`'s JSON lines) of one manifest version, gzipped
/// once and kept until the manifest changes. The ETag is of the uncompressed lines, so it changes exactly when a row
/// an app sees changes. Memory: the compressed lines.
struct OriginManifestBody: Sendable {
    var version: Int
    var etag: String
    var gzipped: ByteBuffer
    var imageCount: Int

    /// Blocks: reads the rows in batches and compresses the lines (compress-nio: zlib, which NIO's own
    /// `NIOHTTPCompression` wraps only as a channel handler for every response, not for one kept body).
    static func make(from reader: CacheReader, version: Int) throws(CacheError) -> OriginManifestBody {
        var lines = ByteBuffer()
        var count = 0
        try reader.exportAppManifest { image throws(CacheError) in
            guard let line = try? JSONLines.line(image) else { return }
            lines.writeBytes(line)
            count += 1
        }
        let digest = lines.withUnsafeReadableBytes { SHA256Hex.digest(ofBytes: $0) }
        let gzipped: ByteBuffer
        do {
            gzipped = try lines.compress(with: .gzip())
        } catch {
            throw CacheError.database(path: reader.layout.manifestPath, reason: "the app manifest could not be compressed: \(error)")
        }
        return OriginManifestBody(version: version, etag: FileValidators.etag(sha256Hex: digest), gzipped: gzipped,
                                  imageCount: count)
    }
}
