import Crawl

/// The catalog an embedded `CatalogServer` serves. Every choice is derived from `seed`, so two servers with
/// one configuration serve the same products and image bytes.
public struct CatalogConfiguration: Sendable, Hashable {
    /// At start (1,336 is the seed apps' catalog size).
    public var productCount: Int
    public var seed: UInt64
    public var pageShape: PageShape
    /// Products whose thumbnail URL is another product's (re-listed items).
    var sharedThumbnailFraction: Double
    var withoutThumbnailFraction: Double
    /// Products (with a thumbnail) whose detail carousel opens with the list thumbnail, the same URL.
    var carouselOpensWithThumbnailFraction: Double
    /// Photos to cut images from (its `nature/` subfolder when present); nil or no JPEGs: synthetic images.
    public var photoDirectory: String?
    /// N: the paths share N images (fewer encodings, for quick tests); nil, each has its own.
    var imagePoolSize: Int?
    public var imageMix: CatalogImageMix
    /// Encoded images kept in memory; older ones are made again when asked for.
    var imageCacheBytes: Int
    var defaultItemsPerPage: Int
    /// Larger requests are capped, as real APIs do.
    var maxItemsPerPage: Int

    public init(
        productCount: Int = 1336,
        seed: UInt64 = 20230323,
        pageShape: PageShape = .camelCase,
        sharedThumbnailFraction: Double = 0.02,
        withoutThumbnailFraction: Double = 0.01,
        carouselOpensWithThumbnailFraction: Double = 1.0 / 3,
        photoDirectory: String? = "/usr/share/backgrounds/mate",
        imagePoolSize: Int? = nil,
        imageMix: CatalogImageMix = .seeds,
        imageCacheBytes: Int = 256 << 20,
        defaultItemsPerPage: Int = 20,
        maxItemsPerPage: Int = 1000
    ) {
        self.productCount = max(0, productCount)
        self.seed = seed
        self.pageShape = pageShape
        self.sharedThumbnailFraction = min(1, max(0, sharedThumbnailFraction))
        self.withoutThumbnailFraction = min(1, max(0, withoutThumbnailFraction))
        self.carouselOpensWithThumbnailFraction = min(1, max(0, carouselOpensWithThumbnailFraction))
        self.photoDirectory = photoDirectory
        self.imagePoolSize = imagePoolSize.map { max(1, $0) }
        self.imageMix = imageMix
        self.imageCacheBytes = max(0, imageCacheBytes)
        self.defaultItemsPerPage = max(1, defaultItemsPerPage)
        self.maxItemsPerPage = max(1, maxItemsPerPage)
    }
}
