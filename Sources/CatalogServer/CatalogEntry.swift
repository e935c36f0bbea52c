import Crawl

/// A product as the catalog keeps it: the API fields plus where its images
/// live (paths under the server, the host added when rendering).
struct CatalogEntry: Sendable {
    /// How a product without a thumbnail shows that in JSON.
    enum MissingThumbnail: Sendable {
        case absentKey, null, emptyString
    }

    var product: Product
    /// `thumbnails/<yyyyMMdd>/<32 hex>_thumb`, or nil.
    var thumbnailPath: String?
    var missingThumbnail: MissingThumbnail
    /// Paths of the detail images (`images[].url`).
    var imagePaths: [String]
}
