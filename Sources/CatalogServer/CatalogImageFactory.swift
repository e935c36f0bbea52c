import Downsample
import Foundation
import Hummingbird
import WarmSupport

/// Makes any image of the catalog from its key alone (`CatalogImageMix.spec(forKey:)`), cut out of one of
/// the real photos, or of a seeded pattern when there is no photo folder: equal keys give equal bytes.
/// Costs: the photos in memory (about 60 MB for 12 at 1600 px); per image, one bitmap and its encoding
/// (a few ms for the seeds mix, about 0.3 s for a phone photo). Blocking.
struct CatalogImageFactory: Sendable {
    let configuration: CatalogConfiguration
    private let photos: [(name: String, photo: SourcePhoto)]

    init(configuration: CatalogConfiguration) throws(DownsampleError) {
        self.configuration = configuration
        let maxSide = configuration.imageMix.sourcePhotoMaxSide
        var photos: [(String, SourcePhoto)] = []
        for path in Self.photoFiles(in: configuration.photoDirectory) {
            guard let data = FileManager.default.contents(atPath: path),
                  let photo = try? SourcePhoto(data: data, maxSide: maxSide) else { continue }
            photos.append((URL(fileURLWithPath: path).lastPathComponent, photo))
        }
        if photos.isEmpty {
            // Seeded patterns, small: the variants are resized up from them.
            for index in 0..<4 {
                let (width, height) = (320, 240)
                let pixels = ImageComposer.pattern(width: width, height: height, seed: configuration.seed &+ UInt64(index))
                photos.append(("pattern-\(index)", try SourcePhoto(rgbPixels: pixels, width: width, height: height)))
            }
        }
        self.photos = photos
    }

    var usesPhotos: Bool { !(photos.first?.name.hasPrefix("pattern-") ?? true) }

    func make(key: UInt64) throws(DownsampleError) -> CatalogImage {
        let spec = configuration.imageMix.spec(forKey: key)
        let photo = photos[Int(key % UInt64(photos.count))]
        let data = try ImageComposer.variant(of: photo.photo, spec.cut, as: spec.encoding)
        return CatalogImage(
            kind: spec.kind, format: spec.encoding.format, uprightSize: spec.uprightSize,
            orientationTag: spec.encoding.orientationTag, progressive: spec.encoding.progressive,
            synthetic: !usesPhotos, bytes: ByteBuffer(bytes: data), etag: "\"\(Self.contentHash(data))\"",
            lastModified: Self.lastModified(key: key))
    }

    /// Of `directory/nature` (or of `directory`), sorted so the catalog is stable.
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

    static func contentHash(_ data: Data) -> String {
        let hex = String(FNV1a.hash(data), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// 2023-03-23 00:00 GMT plus up to a year of hours chosen by the key.
    static func lastModified(key: UInt64) -> String {
        HTTPDateText.format(secondsSince1970: 1_679_529_600 + Int(key % 8760) * 3600)
    }
}
