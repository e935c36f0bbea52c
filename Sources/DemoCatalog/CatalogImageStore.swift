import WarmSupport
import Downsample
import Foundation
import Hummingbird
import NIOPosix

/// Images made on first request (the server listens at once, whatever the size) and kept in a bounded LRU. Each
/// is made from its key alone, cut out of a real photo or a seeded pattern, so an evicted one is remade byte for
/// byte, and kept validators answer 304s.
actor CatalogImageStore {
    private let mix: CatalogImageMix
    private let photos: [SourcePhoto]
    private let capacityBytes: Int
    private var cached: [UInt64: CatalogImage] = [:]
    /// Least recent first (the cache holds a few thousand at most).
    private var order: [UInt64] = []
    private var cachedBytes = 0
    private var making: [UInt64: Task<Result<CatalogImage, DownsampleError>, Never>] = [:]
    private var validators: [UInt64: (etag: String, lastModified: String)] = [:]
    /// One thread per core, its own so that making does not queue behind the process's other blocking work.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(1, Machine.cores))
        pool.start()
        return pool
    }()

    init(configuration: CatalogConfiguration) throws(DownsampleError) {
        mix = configuration.imageMix
        capacityBytes = configuration.imageCacheBytes
        let maxSide = mix.sourcePhotoMaxSide
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

    /// `upload`: made as a seller's upload (`CatalogGenerator.isUpload`; such keys are apart from the others').
    func image(key: UInt64, upload: Bool = false) async throws -> CatalogImage {
        if let image = cached[key] {
            if let index = order.lastIndex(of: key) { order.remove(at: index) }
            order.append(key)
            return image
        }
        if let task = making[key] { return try await task.value.get() }
        let (mix, photo) = (self.mix, photos[Int(key % UInt64(photos.count))])
        let task = Task {
            await BlockingWork.run(on: Self.pool) {
                Result { () throws(DownsampleError) in try Self.make(key: key, upload: upload, mix: mix, photo: photo) }
            }
        }
        making[key] = task
        defer { making[key] = nil }
        let image = try await task.value.get()
        validators[key] = (image.etag, image.lastModified)
        insert(image, key: key)
        return image
    }

    /// Kept for every image made, so that a revalidation is answered without making the image again.
    func validators(key: UInt64, upload: Bool = false) async throws -> (etag: String, lastModified: String) {
        if let known = validators[key] { return known }
        let image = try await image(key: key, upload: upload)
        return (image.etag, image.lastModified)
    }

    private func insert(_ image: CatalogImage, key: UInt64) {
        guard cached[key] == nil, image.byteCount <= capacityBytes else { return }
        cached[key] = image
        order.append(key)
        cachedBytes += image.byteCount
        while cachedBytes > capacityBytes, !order.isEmpty {
            let oldest = order.removeFirst()
            cachedBytes -= cached.removeValue(forKey: oldest)?.byteCount ?? 0
        }
    }

    /// Blocking.
    private static func make(key: UInt64, upload: Bool, mix: CatalogImageMix,
                             photo: SourcePhoto) throws(DownsampleError) -> CatalogImage {
        let spec = mix.spec(forKey: key, upload: upload)
        let data = try photo.image(spec.cut, as: spec.encoding)
        return CatalogImage(
            spec: spec, bytes: ByteBuffer(bytes: data), etag: "\"" + SHA256Hex.digest(of: data).prefix(16) + "\"",
            // 2023-03-23 00:00 GMT plus up to a year of hours chosen by the key.
            lastModified: HTTPDateText.format(secondsSince1970: 1_679_529_600 + Int(key % 8760) * 3600))
    }

    /// Of `directory/nature` (or of `directory`), sorted so the catalog is stable.
    private static func photoFiles(in directory: String?) -> [String] {
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
struct CatalogImage: Sendable {
    var spec: CatalogImageSpec
    var bytes: ByteBuffer
    /// Strong, from the content's SHA-256 (its first 64 bits in hex), quotes included.
    var etag: String
    /// Fixed per image key, so revalidation is stable across runs.
    var lastModified: String

    var byteCount: Int { bytes.readableBytes }
    public var contentType: String { "image/\(spec.encoding.format.rawValue)" }
}
