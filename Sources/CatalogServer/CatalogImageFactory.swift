import Downsample
import Foundation
import Hummingbird
import WarmSupport

/// Makes any image of the catalog from its key alone: the mix's spec for
/// the key (`CatalogImageMix.spec(forKey:)`), cut out of one of the real
/// photos (or of a seeded synthetic pattern when there is no photo folder).
/// Equal keys give equal bytes, in any process.
///
/// Costs: at start, the photos decoded once into memory (shrink-on-load to
/// the mix's `sourcePhotoMaxSide`: about 60 MB and under a second for the
/// 12 mate-backgrounds photos at 1600 px); per image, one bitmap of its size
/// and its encoding (a few ms for the seeds mix, about 0.3 s for a phone
/// photo). Blocking: call it off the cooperative pool (`CatalogImageStore` does).
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

    /// True when the images are cut from real photos.
    var usesPhotos: Bool { !(photos.first?.name.hasPrefix("pattern-") ?? true) }

    /// The image for `key`.
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

    /// The JPEGs of `directory/nature` (or of `directory` itself), sorted so the catalog is stable.
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

    /// FNV-1a 64 of the bytes, as 16 hex digits.
    static func contentHash(_ data: Data) -> String {
        let hex = String(FNV1a.hash(data), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// 2023-03-23 00:00 GMT plus up to a year of hours chosen by the key, as an HTTP date.
    static func lastModified(key: UInt64) -> String {
        HTTPDateText.format(secondsSince1970: 1_679_529_600 + Int(key % 8760) * 3600)
    }
}
