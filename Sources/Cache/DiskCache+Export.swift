import Foundation
import GRDB
import WarmSupport

extension DiskCache {
    /// Every file is read once (one in memory at a time) to count and hash it, so the numbers are the files', whatever
    /// a row says; a row whose file is missing is left out.
    public func exportAppManifest(_ body: (AppManifestImage) throws(CacheError) -> Void) throws(CacheError) {
        var current: AppManifestImage?
        try Self.forEachBatch(of: pool, layout: layout, where: "path IS NOT NULL",
                              batchSize: 1_000) { rows throws(CacheError) in
            for row in rows {
                guard let path = row.path, let variant = CacheVariant(name: row.variant),
                      let width = row.outputWidth, let height = row.outputHeight,
                      let bytes = try? files.readFile(relativePath: path).bytes else { continue }
                if current?.url != row.url {
                    if let finished = current { try body(finished.sorted()) }
                    current = AppManifestImage(url: row.url, productIds: [], variants: [])
                }
                current!.productIds = Self.merged(current!.productIds, row.productIds)
                if current!.thumbHash == nil, let hash = row.thumbHash {
                    current!.thumbHash = hash.base64EncodedString()
                    current!.averageColor = row.averageColor
                }
                let digest = bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
                current!.variants.append(AppManifestImage.Variant(
                    size: variant.longestSide, format: variant.formatName, width: width, height: height,
                    bytes: bytes.count, etag: CachedFile.etag(sha256Hex: digest), decodedBytes: width * height * 4))
            }
        }
        if let finished = current { try body(finished.sorted()) }
    }

    /// Through a temp file beside `path`, fsynced and renamed, so a reader never sees half of it; returns the count.
    @discardableResult
    public func writeAppManifest(to path: String) throws(CacheError) -> Int {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw .fileSystem(operation: "create the app manifest", path: temporary, errno: errno)
        }
        var count = 0
        do throws(CacheError) {
            defer { try? handle.close() }
            try exportAppManifest { image throws(CacheError) in
                do {
                    try handle.write(contentsOf: try AppManifestImage.line(image))
                } catch {
                    throw .fileSystem(operation: "write the app manifest (\(error))", path: temporary, errno: EIO)
                }
                count += 1
            }
            do {
                try handle.synchronize()
            } catch {
                throw .fileSystem(operation: "fsync the app manifest (\(error))", path: temporary, errno: EIO)
            }
            guard rename(temporary, path) == 0 else { throw .system("rename", path: path, errno: errno) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        return count
    }
}

extension AppManifestImage {
    /// The image as one JSON line (keys sorted, slashes unescaped), newline included.
    public static func line(_ image: AppManifestImage) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(image) + Data("\n".utf8)
    }

    func sorted() -> AppManifestImage {
        var image = self
        image.variants.sort { ($0.size, $0.format) < ($1.size, $1.format) }
        return image
    }
}
