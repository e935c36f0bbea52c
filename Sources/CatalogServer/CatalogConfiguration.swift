import Crawl

/// The catalog an embedded `CatalogServer` serves. Every choice is derived
/// from `seed`, so two servers with one configuration serve the same products
/// and the same image bytes (ports aside).
public struct CatalogConfiguration: Sendable, Hashable {
    /// Products in the list at start (1,336 is the seed apps' catalog size).
    public var productCount: Int
    public var seed: UInt64
    /// Spelling of the list page's own fields.
    public var pageShape: PageShape
    /// Share of products whose thumbnail URL is another product's (re-listed items).
    public var sharedThumbnailFraction: Double
    /// Share of products with a missing, null or empty thumbnail.
    public var withoutThumbnailFraction: Double
    /// Folder of real photos to cut images from (its `nature/` subfolder is
    /// used when present); nil or a folder without JPEGs gives synthetic images.
    public var photoDirectory: String?
    /// nil (the default): every image path shows an image of its own. N: the
    /// paths share N images (fewer encodings, for quick tests).
    public var imagePoolSize: Int?
    /// Which kinds and sizes of image the catalog holds (`CatalogImageMix`).
    public var imageMix: CatalogImageMix
    /// Bytes of encoded images the server keeps in memory; older ones are made again when asked for.
    public var imageCacheBytes: Int
    /// `items_per_page` when a request gives none (OpenMarket's default).
    public var defaultItemsPerPage: Int
    /// Largest `items_per_page` honoured; larger requests are capped, as real APIs do.
    public var maxItemsPerPage: Int

    public init(
        productCount: Int = 1336,
        seed: UInt64 = 20230323,
        pageShape: PageShape = .camelCase,
        sharedThumbnailFraction: Double = 0.02,
        withoutThumbnailFraction: Double = 0.01,
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
        self.photoDirectory = photoDirectory
        self.imagePoolSize = imagePoolSize.map { max(1, $0) }
        self.imageMix = imageMix
        self.imageCacheBytes = max(0, imageCacheBytes)
        self.defaultItemsPerPage = max(1, defaultItemsPerPage)
        self.maxItemsPerPage = max(1, maxItemsPerPage)
    }
}
