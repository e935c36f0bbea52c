import Foundation
import GRDB
import WarmSupport

extension CacheMaintenance {
    /// From the manifest alone (rows in key order, a batch in memory): bytes and ETags are the validators recorded when
    /// each file was stored, so no cached file is read; a row without them (file missing when they were filled) is
    /// left out. `verify` is what compares the files with these numbers.
    public func exportAppManifest(_ body: (AppManifestImage) throws(CacheError) -> Void) throws(CacheError) {
        try Self.exportAppManifest(of: pool, layout: layout, body)
    }

    /// The export over any connection pool: the cache's own, or the origin's read-only `CacheReader`.
    static func exportAppManifest(of pool: DatabasePool, layout: CacheLayout,
                                  _ body: (AppManifestImage) throws(CacheError) -> Void) throws(CacheError) {
        var images = AppManifestImage.Grouping()
        try DiskCache.forEachBatch(of: pool, layout: layout, where: "path IS NOT NULL AND sha256 IS NOT NULL",
                         batchSize: 1_000) { rows throws(CacheError) in
            for row in rows {
                if let finished = images.add(row) { try body(finished) }
            }
        }
        if let finished = images.finish() { try body(finished) }
    }

    /// Through `AtomicFile` (a temp file beside `path`, fsynced, renamed, the directory fsynced), so a reader never
    /// sees half of it and a failed export leaves the previous one; returns the count.
    @discardableResult
    public func writeAppManifest(to path: String) throws(CacheError) -> Int {
        var count = 0
        do {
            try AtomicFile.write(to: path) { sink in
                try exportAppManifest { image throws(CacheError) in
                    let line: Data
                    do { line = try JSONLines.line(image) } catch {
                        throw .fileSystem(operation: "encode the app manifest (\(error))", path: path, errno: EINVAL)
                    }
                    do throws(AtomicFileError) { try sink.write(line) } catch {
                        throw .system(error.operation, path: error.path, errno: error.code)
                    }
                    count += 1
                }
            }
        } catch let error as CacheError {
            throw error
        } catch let error as AtomicFileError {
            throw .system(error.operation, path: error.path, errno: error.code)
        } catch {
            throw .fileSystem(operation: "write the app manifest (\(error))", path: path, errno: EIO)
        }
        return count
    }
}

extension AppManifestImage {
    /// Turns manifest rows, in (url, variant) order, into images: `add` returns an image once a row of the next URL
    /// arrives, `finish` the last one. The one place the app manifest is made (`warm cache export`, `GET /v1/manifest`).
    struct Grouping: Sendable {
        private var current: AppManifestImage?

        init() {}

        mutating func add(_ row: ManifestRow) -> AppManifestImage? {
            guard let variant = CacheVariant(name: row.variant), let validators = FileValidators(row: row),
                  let width = row.outputWidth, let height = row.outputHeight else { return nil }
            var finished: AppManifestImage?
            if current?.url != row.url {
                finished = finish()
                current = AppManifestImage(url: row.url, productIds: [], variants: [])
            }
            current!.productIds = DiskCache.merged(current!.productIds, row.productIds)
            current!.carousel = Array(Set(current!.carousel).union(row.carousel)).sorted()
            if current!.thumbHash == nil, let hash = row.thumbHash {
                current!.thumbHash = hash.base64EncodedString()
                current!.averageColor = row.averageColor
            }
            current!.variants.append(AppManifestImage.Variant(
                size: variant.longestSide, format: variant.format, width: width, height: height,
                bytes: validators.byteCount, etag: validators.etag, decodedBytes: width * height * 4))
            return finished
        }

        mutating func finish() -> AppManifestImage? {
            defer { current = nil }
            return current?.sorted()
        }
    }

    func sorted() -> AppManifestImage {
        var image = self
        image.variants.sort { ($0.size, $0.format.rawValue) < ($1.size, $1.format.rawValue) }
        return image
    }
}
