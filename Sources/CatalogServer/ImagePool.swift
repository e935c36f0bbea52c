import Downsample
import Foundation
import Hummingbird

/// Makes the catalog's images once, at server start: resized crops of real
/// photos when a photo folder is there, of synthetic patterns otherwise.
///
/// Costs: encoding runs on as many tasks as there are cores (it blocks those
/// threads while it runs, which is fine before the server takes requests);
/// about 10 s for the default 24 marketplace-size images on 2 cores (debug
/// build), and all images stay in memory (about 30 MB at marketplace sizes).
enum ImagePool {
    static func generate(_ configuration: CatalogConfiguration) async throws -> [CatalogImage] {
        let specs = configuration.imageMix.specs(count: configuration.imagePoolSize)
        let photos = photoFiles(in: configuration.photoDirectory)
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return try await withThrowingTaskGroup(of: (Int, CatalogImage).self) { group in
            var images = [CatalogImage?](repeating: nil, count: specs.count)
            var next = 0
            func addTask() {
                let index = next
                next += 1
                // Step through the photos so no two images share both kind and photo.
                let photo = photos.isEmpty ? nil : photos[(index + index / photos.count) % photos.count]
                group.addTask {
                    (index, try make(specs[index], index: index, photo: photo, seed: configuration.seed))
                }
            }
            while next < min(width, specs.count) { addTask() }
            while let (index, image) = try await group.next() {
                images[index] = image
                if next < specs.count { addTask() }
            }
            return images.compactMap { $0 }
        }
    }

    /// The JPEGs of `directory/nature` (or of `directory` itself), sorted so the pool is stable.
    static func photoFiles(in directory: String?) -> [String] {
        guard let directory else { return [] }
        let manager = FileManager.default
        for folder in [directory + "/nature", directory] {
            guard let names = try? manager.contentsOfDirectory(atPath: folder) else { continue }
            let jpegs = names.filter { name in
                let lower = name.lowercased()
                return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
            }.sorted()
            if !jpegs.isEmpty { return jpegs.map { folder + "/" + $0 } }
        }
        return []
    }

    private static func make(_ spec: CatalogImageSpec, index: Int, photo: String?, seed: UInt64) throws -> CatalogImage {
        var synthetic = true
        var encoded: Data?
        if let photo, let source = FileManager.default.contents(atPath: photo) {
            encoded = try? ImageComposer.photo(source, size: spec.uprightSize, as: spec.encoding)
            synthetic = encoded == nil
        }
        if encoded == nil {
            // A small seeded pattern, scaled up by the same path a photo takes.
            let (width, height) = (320, 240)
            let pattern = ImageComposer.pattern(width: width, height: height, seed: seed &+ UInt64(index))
            let source = try ImageComposer.encode(pixels: pattern, width: width, height: height, bands: 3,
                                                  as: CompositionEncoding(format: .png))
            encoded = try ImageComposer.photo(source, size: spec.uprightSize, as: spec.encoding)
        }
        let data = encoded ?? Data()
        return CatalogImage(
            kind: spec.kind, format: spec.encoding.format, uprightSize: spec.uprightSize,
            orientationTag: spec.encoding.orientationTag, progressive: spec.encoding.progressive,
            synthetic: synthetic, bytes: ByteBuffer(bytes: data), etag: "\"\(contentHash(data))\"",
            lastModified: lastModified(index: index))
    }

    /// FNV-1a 64 of the bytes, as 16 hex digits: enough to tell pool images apart.
    static func contentHash(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// 2023-03-23 00:00 GMT plus `index` hours, as an HTTP date.
    static func lastModified(index: Int) -> String {
        HTTPDateText.format(Date(timeIntervalSince1970: 1_679_529_600 + Double(index) * 3600))
    }
}
