import Downsample
import Foundation
import Hummingbird
import WarmSupport

/// Makes any catalog image from its key alone, cut out of a real photo or a seeded pattern: equal keys
/// give equal bytes. Blocking.
struct CatalogImageFactory: Sendable {
    let configuration: CatalogConfiguration
    private let photos: [SourcePhoto]

    init(configuration: CatalogConfiguration) throws(DownsampleError) {
        self.configuration = configuration
        let maxSide = configuration.imageMix.sourcePhotoMaxSide
        var photos = Self.photoFiles(in: configuration.photoDirectory).compactMap { path in
            FileManager.default.contents(atPath: path).flatMap { try? SourcePhoto(data: $0, maxSide: maxSide) }
        }
        if photos.isEmpty {
            // Seeded patterns, small: the variants are resized up from them.
            for index in 0..<4 {
                let (width, height) = (320, 240)
                let pixels = ImageComposer.pattern(width: width, height: height, seed: configuration.seed &+ UInt64(index))
                photos.append(try SourcePhoto(rgbPixels: pixels, width: width, height: height))
            }
        }
        self.photos = photos
    }

    func make(key: UInt64) throws(DownsampleError) -> CatalogImage {
        let spec = configuration.imageMix.spec(forKey: key)
        let photo = photos[Int(key % UInt64(photos.count))]
        let data = try ImageComposer.variant(of: photo, spec.cut, as: spec.encoding)
        return CatalogImage(
            kind: spec.kind, format: spec.encoding.format, uprightSize: spec.uprightSize,
            orientationTag: spec.encoding.orientationTag, bytes: ByteBuffer(bytes: data),
            etag: String(format: "\"%016llx\"", FNV1a.hash(data)),
            // 2023-03-23 00:00 GMT plus up to a year of hours chosen by the key.
            lastModified: HTTPDateText.format(secondsSince1970: 1_679_529_600 + Int(key % 8760) * 3600))
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
}

/// One encoded image of the catalog, with its HTTP validators.
public struct CatalogImage: Sendable {
    /// What it imitates: "server-thumbnail", "phone-photo-exif6", "screenshot-png"...
    public var kind: String
    public var format: ImageFormat
    /// Size as a viewer shows it (after the EXIF orientation).
    public var uprightSize: PixelSize
    public var orientationTag: Int?
    public var bytes: ByteBuffer
    /// Strong, from a content hash (FNV-1a 64), quotes included.
    public var etag: String
    /// Fixed per image key, so revalidation is stable across runs.
    public var lastModified: String

    public var byteCount: Int { bytes.readableBytes }
    public var contentType: String { "image/\(format.rawValue)" }
}
